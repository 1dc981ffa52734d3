import type { BridgeClient, PortInfo } from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';
import { ANTREA_TYPE_KEY } from '../ovs/external-ids.js';
import { TRAFFIC_CONTROL_INTERFACE_TYPE } from './port-spec.js';

/** Whether a bridge port is one an agent created or attached for a TrafficControl. */
export function isTrafficControlPort(p: PortInfo): boolean {
  const ids = { ...(p.interfaces[0]?.externalIds ?? {}), ...p.externalIds };
  return ids[ANTREA_TYPE_KEY] === TRAFFIC_CONTROL_INTERFACE_TYPE;
}

/**
 * Removes the TrafficControl ports of `ports` that `keep` does not name (a device goes back to
 * being a plain Node device; internal ports and tunnels are gone). With the gate off, a previous
 * run's ports all go; their flows went with that run's round.
 */
export async function removeTrafficControlPorts(
  bridges: BridgeClient,
  bridgeName: string,
  ports: readonly PortInfo[],
  logger: Logger,
  keep: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const port of ports) {
    if (!isTrafficControlPort(port) || keep.has(port.name)) continue;
    await bridges.deletePort(bridgeName, port.name);
    logger.info({ port: port.name }, 'removed TrafficControl port');
  }
}
