import type { KubeObject } from '../k8s/types.js';
import { NSX_PATH_ANNOTATION } from '../labels.js';
import type { RuleStatisticsReport } from '../nsx/channels.js';

/** stats.antrea.io AntreaClusterNetworkPolicyStats, as far as the adapter reads it. */
export interface PolicyTrafficStats {
  /** ACNP name. */
  name: string;
  ruleTrafficStats?: {
    name?: string;
    trafficStats?: { packets?: number; bytes?: number; sessions?: number };
  }[];
}

/**
 * Where policy statistics come from. The Antrea controller's stats API
 * (GET /apis/stats.antrea.io/v1alpha1/antreaclusternetworkpolicystats) plugs in here.
 */
export interface StatsSource {
  clusterNetworkPolicyStats(): Promise<PolicyTrafficStats[]>;
}

/**
 * ACNP rule statistics -> NSX rule statistics keyed by rule_id. Rule names are the NSX rule_id
 * ("2025"), or "<rule_id>-in"/"<rule_id>-out" for an IN_OUT rule split in two, whose counters are
 * summed. Only ACNPs written by the CCP adapter (they carry the NSX path annotation) count.
 */
export function nsxRuleStatistics(
  stats: readonly PolicyTrafficStats[],
  managed: ReadonlyMap<string, KubeObject>,
): RuleStatisticsReport[] {
  const byRule = new Map<number, RuleStatisticsReport>();
  for (const p of stats) {
    if (!managed.get(p.name)?.metadata?.annotations?.[NSX_PATH_ANNOTATION]) continue;
    for (const r of p.ruleTrafficStats ?? []) {
      const m = /^(\d+)(?:-(?:in|out))?$/.exec(r.name ?? '');
      if (!m) continue;
      const id = Number(m[1]);
      const acc = byRule.get(id) ?? { rule_id: id, packet_count: 0, byte_count: 0, session_count: 0 };
      acc.packet_count += r.trafficStats?.packets ?? 0;
      acc.byte_count += r.trafficStats?.bytes ?? 0;
      acc.session_count += r.trafficStats?.sessions ?? 0;
      byRule.set(id, acc);
    }
  }
  return [...byRule.values()].sort((a, b) => (a.rule_id ?? 0) - (b.rule_id ?? 0));
}
