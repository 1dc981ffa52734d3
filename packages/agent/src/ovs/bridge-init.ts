import type { BridgeClient, PortInfo } from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';
import { type AgentConfig, GATEWAY_OFPORT, needsTunnel, TUNNEL_OFPORT } from '../config.js';
import { ANTREA_TYPE_KEY, InterfaceKind, ROUND_KEY } from './external-ids.js';

export interface BridgeState {
  readonly gatewayOfport: number;
  readonly tunnelOfport: number | undefined;
  /** This start's round (previous + 1); persisted once flows are reconciled. */
  readonly round: number;
  readonly previousRound: number | undefined;
  /** Ports found on the bridge, for the interface store. */
  readonly ports: readonly PortInfo[];
}

/** Tunnel options of a flow-based tunnel: the destination and key come from each packet's metadata. */
export function tunnelOptions(): Record<string, string> {
  return { remote_ip: 'flow', key: 'flow' };
}

/**
 * Creates or adopts br-int with antrea-gw0 and (for encap and hybrid) antrea-tun0, as Antrea's
 * agent initializer does. Idempotent: an existing bridge, gateway or tunnel is brought up to date,
 * never recreated, so Pods attached to it keep working across agent restarts.
 */
export async function initBridge(
  bridges: BridgeClient,
  cfg: AgentConfig,
  gatewayMtu: number,
  logger: Logger,
): Promise<BridgeState> {
  const log = logger.child({ component: 'bridge-init' });
  const existing = await bridges.getBridge(cfg.bridgeName);
  const prev = existing?.externalIds[ROUND_KEY];
  const previousRound = prev === undefined ? undefined : Number(prev);
  const round = ((previousRound ?? 0) + 1) & 0xffff || 1;
  await bridges.ensureBridge(cfg.bridgeName, {
    datapathType: cfg.datapathType,
    protocols: ['OpenFlow10', 'OpenFlow15'],
    failMode: 'secure',
  });
  let ports = await bridges.listPorts(cfg.bridgeName);
  const byName = new Map(ports.map((p) => [p.name, p]));

  if (!byName.has(cfg.gatewayName)) {
    await bridges.addPort(cfg.bridgeName, {
      name: cfg.gatewayName,
      type: 'internal',
      ofportRequest: GATEWAY_OFPORT,
      mtuRequest: gatewayMtu,
      externalIds: { [ANTREA_TYPE_KEY]: InterfaceKind.Gateway },
    });
    log.info({ port: cfg.gatewayName }, 'created gateway port');
  } else {
    await bridges.updateInterface(cfg.gatewayName, { mtuRequest: gatewayMtu });
  }
  const gatewayOfport = await bridges.waitForOfport(cfg.gatewayName);

  let tunnelOfport: number | undefined;
  if (needsTunnel(cfg.trafficEncapMode)) {
    const tun = byName.get(cfg.tunnelName);
    const options = tunnelOptions();
    if (!tun) {
      await bridges.addPort(cfg.bridgeName, {
        name: cfg.tunnelName,
        type: cfg.tunnelType,
        options,
        ofportRequest: TUNNEL_OFPORT,
        externalIds: { [ANTREA_TYPE_KEY]: InterfaceKind.Tunnel },
      });
      log.info({ port: cfg.tunnelName, type: cfg.tunnelType }, 'created tunnel port');
    } else if (tun.interfaces[0]?.type !== cfg.tunnelType) {
      // The tunnel type changed in the configuration: convert the port in place.
      await bridges.updateInterface(cfg.tunnelName, { type: cfg.tunnelType, options });
      log.info({ port: cfg.tunnelName, type: cfg.tunnelType }, 'changed tunnel type');
    }
    tunnelOfport = await bridges.waitForOfport(cfg.tunnelName);
  } else if (byName.has(cfg.tunnelName)) {
    await bridges.deletePort(cfg.bridgeName, cfg.tunnelName);
    log.info({ port: cfg.tunnelName }, 'removed tunnel port (mode without encapsulation)');
  }
  ports = await bridges.listPorts(cfg.bridgeName);
  return { gatewayOfport, tunnelOfport, round, previousRound, ports };
}

/** Records the round once its flows are installed, so the next start knows which cookies are stale. */
export async function persistRound(bridges: BridgeClient, cfg: AgentConfig, round: number): Promise<void> {
  const bridge = await bridges.getBridge(cfg.bridgeName);
  await bridges.updateBridge(cfg.bridgeName, {
    externalIds: { ...(bridge?.externalIds ?? {}), [ROUND_KEY]: String(round) },
  });
}
