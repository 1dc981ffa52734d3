import type { OpenFlowBridgeClient, PacketIn2 } from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { VswitchdAppctl } from '../ovs/vswitchd-appctl.js';
import { ConntrackMetrics, readConntrack } from './conntrack-metrics.js';
import { DeniedConnections } from './denied-connections.js';
import { FlowExporterMetrics } from './flow-exporter-metrics.js';
import { type CountedPolicy, PolicyMetrics } from './policy-metrics.js';

/** What the collectors read of the agent's NetworkPolicy controller. */
export interface PolicyControllerView {
  readonly cache: { policyNames(): string[]; policy(name: string): CountedPolicy | undefined };
  readonly fqdnCache: { readonly size: number };
  ruleOfConjId(conjId: number): { readonly action: string } | undefined;
}

export interface AgentCollectorsOptions {
  /** The NetworkPolicy controller, once there is one. */
  readonly policy: () => PolicyControllerView | undefined;
  /** Packet-ins of br-int: denied connections are counted from them; none: the gauge stays 0. */
  readonly packetIn?: OpenFlowBridgeClient;
  /** ovs-vswitchd's control socket: conntrack gauges; none: they are not exported. */
  readonly appctl?: VswitchdAppctl;
  /** The Flow Exporter's counters while it runs. */
  readonly flowExporter?: () => { readonly reconnections: number } | undefined;
  readonly logger: Logger;
}

/**
 * The agent's NetworkPolicy, denied-connection, Flow Exporter and conntrack metrics, read from the agent's state
 * when scraped (DeniedConnections listens to packet-ins on its own, alongside PacketInHandler). Returns
 * what the Flow Exporter's polls feed.
 */
export function registerPolicyAndConntrackMetrics(
  registry: Registry,
  o: AgentCollectorsOptions,
): { readonly conntrackPollCycle: (seconds: number) => void } {
  new PolicyMetrics(registry, {
    policies: () => {
      const cache = o.policy()?.cache;
      return (cache?.policyNames() ?? []).flatMap((n) => cache?.policy(n) ?? []);
    },
    fqdnNames: () => o.policy()?.fqdnCache.size ?? 0,
  });
  const denied = new DeniedConnections({
    registry,
    deniesByConjId: (id) => {
      const action = o.policy()?.ruleOfConjId(id)?.action;
      return action === 'Drop' || action === 'Reject';
    },
  });
  o.packetIn?.on('packetIn', (pi: PacketIn2) => denied.observe(pi));
  const flowExporter = new FlowExporterMetrics(registry, () => o.flowExporter?.());
  const appctl = o.appctl;
  if (appctl) new ConntrackMetrics({ registry, read: () => readConntrack(appctl), logger: o.logger });
  return { conntrackPollCycle: (seconds) => flowExporter.pollCycle.observe(seconds) };
}
