import type { AntreaNetworkPolicy, ClusterNetworkPolicy, PolicyPhase, PolicyRule } from '@antrea-ts/apis';

export type PolicyType = 'K8sNetworkPolicy' | 'AntreaClusterNetworkPolicy' | 'AntreaNetworkPolicy';

export interface Traffic {
  packets: number;
  bytes: number;
  sessions: number;
}

export interface RuleRow {
  /** The rule's name; K8s rules have none and are shown as ingress[i] / egress[i]. */
  name: string;
  direction: 'Ingress' | 'Egress';
  action: string;
  /** Undefined where Antrea keeps no per-rule stats (K8s NetworkPolicies). */
  traffic: Traffic | undefined;
}

export interface PolicyRow {
  type: PolicyType;
  namespace: string | undefined;
  name: string;
  uid: string;
  tier: string | undefined;
  priority: number | undefined;
  /** Realization reported in the CR's status (Antrea-native policies only, as in Antrea). */
  status:
    | { phase: PolicyPhase; currentNodesRealized: number; desiredNodesRealized: number; message: string }
    | undefined;
  /** Nodes the controller sends the internal policy to; undefined before it is computed. */
  spanNodes: number | undefined;
  traffic: Traffic;
  rules: RuleRow[];
}

/** What the dashboard needs of a K8s NetworkPolicy (client-node's V1NetworkPolicy fits). */
export interface K8sNetworkPolicyLike {
  metadata?: { name?: string; namespace?: string; uid?: string };
  spec?: { ingress?: unknown[]; egress?: unknown[] };
}

/** A stats.antrea.io object as the controller's stats aggregator serves it. */
export interface PolicyStatsLike {
  metadata?: { uid?: string };
  trafficStats?: Partial<Traffic>;
  ruleTrafficStats?: { name?: string; trafficStats?: Partial<Traffic> }[];
}

export interface PolicyInputs {
  k8s: readonly K8sNetworkPolicyLike[];
  clusterPolicies: readonly ClusterNetworkPolicy[];
  namespacedPolicies: readonly AntreaNetworkPolicy[];
  stats: readonly PolicyStatsLike[];
  /** Span size by source policy UID. */
  spans: ReadonlyMap<string, number>;
}

const traffic = (t: Partial<Traffic> | undefined): Traffic => ({
  packets: t?.packets ?? 0,
  bytes: t?.bytes ?? 0,
  sessions: t?.sessions ?? 0,
});

function antreaRules(
  spec: { ingress?: PolicyRule[]; egress?: PolicyRule[] },
  stats: PolicyStatsLike | undefined,
): RuleRow[] {
  const byName = new Map((stats?.ruleTrafficStats ?? []).map((r) => [r.name ?? '', r.trafficStats]));
  const rows: RuleRow[] = [];
  for (const [direction, rules] of [
    ['Ingress', spec.ingress ?? []],
    ['Egress', spec.egress ?? []],
  ] as const) {
    rules.forEach((r, i) => {
      const name = r.name ?? `${direction.toLowerCase()}[${i}]`;
      rows.push({ name, direction, action: r.action, traffic: traffic(byName.get(name)) });
      byName.delete(name);
    });
  }
  // Rules the agents counted under a name the spec does not carry (a policy created without the
  // mutating webhook gets its rule names from the controller): still shown, direction unknown.
  for (const [name, t] of byName) rows.push({ name, direction: 'Ingress', action: '?', traffic: traffic(t) });
  return rows;
}

function antreaRow(
  type: 'AntreaClusterNetworkPolicy' | 'AntreaNetworkPolicy',
  p: ClusterNetworkPolicy | AntreaNetworkPolicy,
  inputs: PolicyInputs,
  statsByUid: ReadonlyMap<string, PolicyStatsLike>,
): PolicyRow {
  const uid = p.metadata.uid ?? '';
  const s = statsByUid.get(uid);
  const failure = p.status?.conditions?.find((c) => c.status !== 'True' || c.type === 'RealizationFailure');
  return {
    type,
    namespace: p.metadata.namespace,
    name: p.metadata.name ?? '',
    uid,
    tier: p.spec.tier ?? 'application',
    priority: p.spec.priority,
    status: p.status
      ? {
          phase: p.status.phase,
          currentNodesRealized: p.status.currentNodesRealized,
          desiredNodesRealized: p.status.desiredNodesRealized,
          message: failure?.message ?? '',
        }
      : undefined,
    spanNodes: inputs.spans.get(uid),
    traffic: traffic(s?.trafficStats),
    rules: antreaRules(p.spec, s),
  };
}

function k8sRow(
  p: K8sNetworkPolicyLike,
  inputs: PolicyInputs,
  statsByUid: ReadonlyMap<string, PolicyStatsLike>,
): PolicyRow {
  const uid = p.metadata?.uid ?? '';
  const rules: RuleRow[] = [];
  for (const [direction, list] of [
    ['Ingress', p.spec?.ingress ?? []],
    ['Egress', p.spec?.egress ?? []],
  ] as const) {
    for (let i = 0; i < list.length; i++) {
      rules.push({
        name: `${direction.toLowerCase()}[${i}]`,
        direction,
        action: 'Allow',
        traffic: undefined,
      });
    }
  }
  return {
    type: 'K8sNetworkPolicy',
    namespace: p.metadata?.namespace,
    name: p.metadata?.name ?? '',
    uid,
    tier: undefined,
    priority: undefined,
    status: undefined,
    spanNodes: inputs.spans.get(uid),
    traffic: traffic(statsByUid.get(uid)?.trafficStats),
    rules,
  };
}

/** Joins policies, their status, the controller's spans and the aggregated stats, by policy UID. */
export function policyRows(inputs: PolicyInputs): PolicyRow[] {
  const statsByUid = new Map(inputs.stats.map((s) => [s.metadata?.uid ?? '', s]));
  const rows = [
    ...inputs.clusterPolicies.map((p) => antreaRow('AntreaClusterNetworkPolicy', p, inputs, statsByUid)),
    ...inputs.namespacedPolicies.map((p) => antreaRow('AntreaNetworkPolicy', p, inputs, statsByUid)),
    ...inputs.k8s.map((p) => k8sRow(p, inputs, statsByUid)),
  ];
  const key = (r: PolicyRow) => `${r.type}/${r.namespace ?? ''}/${r.name}`;
  return rows.sort((a, b) => key(a).localeCompare(key(b)));
}
