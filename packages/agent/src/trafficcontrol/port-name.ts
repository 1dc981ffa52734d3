import { createHash } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { TrafficControlPort } from '@antrea-ts/apis';

/** IANA ports a UDP tunnel uses when the TrafficControl names none. */
export const DEFAULT_GENEVE_PORT = 6081;
export const DEFAULT_VXLAN_PORT = 4789;

/** An IP as Go's net.ParseIP holds it: 16 bytes, IPv4 mapped into ::ffff:0:0/96. */
function ip16(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from([...Buffer.alloc(10), 0xff, 0xff, ...ip.split('.').map(Number)]);
  const [head = '', tail = ''] = ip.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}

function int32s(values: readonly number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  for (const [i, v] of values.entries()) out.writeInt32BE(v | 0, i * 4);
  return out;
}

/** `<prefix>-` and the first 6 hex digits of SHA-1 over the remote IP and the tunnel's numbers. */
function tunnelName(prefix: string, remoteIp: string, numbers: readonly number[]): string {
  const hash = createHash('sha1').update(ip16(remoteIp)).update(int32s(numbers)).digest('hex');
  return `${prefix}-${hash.slice(0, 6)}`;
}

/**
 * The OVS port name of a TrafficControl port. Internal ports and devices keep their own names;
 * tunnels are named after what makes them distinct (remote IP, port, VNI or key, ERSPAN fields),
 * hashed the way Antrea's agent names them, so TrafficControls with the same tunnel share one port
 * and ports an Antrea agent created are recognised.
 */
export function trafficControlPortName(port: TrafficControlPort): string {
  if (port.ovsInternal) return port.ovsInternal.name;
  if (port.device) return port.device.name;
  if (port.geneve) {
    const t = port.geneve;
    return tunnelName('geneve', t.remoteIP, [t.destinationPort ?? DEFAULT_GENEVE_PORT, t.vni ?? 0]);
  }
  if (port.vxlan) {
    const t = port.vxlan;
    return tunnelName('vxlan', t.remoteIP, [t.destinationPort ?? DEFAULT_VXLAN_PORT, t.vni ?? 0]);
  }
  if (port.gre) return tunnelName('gre', port.gre.remoteIP, [port.gre.key ?? 0]);
  if (port.erspan) {
    const t = port.erspan;
    return tunnelName('erspan', t.remoteIP, [
      t.sessionID ?? 0,
      t.version,
      t.index ?? 0,
      t.dir ?? 0,
      t.hardwareID ?? 0,
    ]);
  }
  throw new TypeError('TrafficControl port of no known kind');
}
