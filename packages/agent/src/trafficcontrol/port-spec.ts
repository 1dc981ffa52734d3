import type { TrafficControlPort } from '@antrea-ts/apis';
import type { PortSpec } from '@antrea-ts/ovsdb';
import { ANTREA_TYPE_KEY } from '../ovs/external-ids.js';

/** Antrea's antrea-type of TrafficControl ports, so a restarted agent knows which ports are its. */
export const TRAFFIC_CONTROL_INTERFACE_TYPE = 'traffic-control';

const options = (entries: Array<[string, number | string | undefined]>): Record<string, string> =>
  Object.fromEntries(entries.flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));

/** The OVSDB port (one interface) the agent creates for a TrafficControl port named `name`. */
export function trafficControlPortSpec(name: string, port: TrafficControlPort): PortSpec {
  const externalIds = { [ANTREA_TYPE_KEY]: TRAFFIC_CONTROL_INTERFACE_TYPE };
  const base = { name, externalIds };
  if (port.ovsInternal) return { ...base, type: 'internal' };
  if (port.device) return base;
  const udp = port.geneve ?? port.vxlan;
  if (udp) {
    return {
      ...base,
      type: port.geneve ? 'geneve' : 'vxlan',
      options: options([
        ['remote_ip', udp.remoteIP],
        ['dst_port', udp.destinationPort],
        ['key', udp.vni],
      ]),
    };
  }
  if (port.gre) {
    return {
      ...base,
      type: 'gre',
      options: options([
        ['remote_ip', port.gre.remoteIP],
        ['key', port.gre.key],
      ]),
    };
  }
  if (port.erspan) {
    const t = port.erspan;
    return {
      ...base,
      type: 'erspan',
      options: options([
        ['remote_ip', t.remoteIP],
        ['key', t.sessionID],
        ['erspan_ver', t.version],
        // OVS reads the version-1 index as hexadecimal.
        ['erspan_idx', t.version === 1 && t.index !== undefined ? t.index.toString(16) : undefined],
        ['erspan_dir', t.version === 2 ? t.dir : undefined],
        ['erspan_hwid', t.version === 2 ? t.hardwareID : undefined],
      ]),
    };
  }
  throw new TypeError('TrafficControl port of no known kind');
}
