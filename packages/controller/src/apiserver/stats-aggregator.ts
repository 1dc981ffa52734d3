import type { ControlplaneKinds, NetworkPolicyReference } from '@antrea-ts/apis';
import type { ApiObject } from '@antrea-ts/apiserver';
import type { Clock } from '../clock.js';
import type { Store } from '../store/ram-store.js';
import type { InternalNetworkPolicy } from '../types.js';

type NodeStatsSummary = ControlplaneKinds['NodeStatsSummary'];
type NetworkPolicyStats = ControlplaneKinds['NetworkPolicyStats'];

export const STATS_API_VERSION = 'stats.antrea.io/v1alpha1';

interface Traffic {
  packets: number;
  bytes: number;
  sessions: number;
}

interface PolicyStats {
  traffic: Traffic;
  rules: Map<string, Traffic>;
  /** When the controller first saw the policy (stands in for its creationTimestamp). */
  since: string;
}

/** The three stats.antrea.io resources, by the policy type they aggregate. */
export const STATS_RESOURCES = [
  {
    resource: 'networkpolicystats',
    kind: 'NetworkPolicyStats',
    type: 'K8sNetworkPolicy',
    namespaced: true,
    rules: false,
  },
  {
    resource: 'antreaclusternetworkpolicystats',
    kind: 'AntreaClusterNetworkPolicyStats',
    type: 'AntreaClusterNetworkPolicy',
    namespaced: false,
    rules: true,
  },
  {
    resource: 'antreanetworkpolicystats',
    kind: 'AntreaNetworkPolicyStats',
    type: 'AntreaNetworkPolicy',
    namespaced: true,
    rules: true,
  },
] as const;

export type StatsResource = (typeof STATS_RESOURCES)[number];

const zero = (): Traffic => ({ packets: 0, bytes: 0, sessions: 0 });

function add(into: Traffic, d: { packets?: number; bytes?: number; sessions?: number } | undefined): void {
  into.packets += d?.packets ?? 0;
  into.bytes += d?.bytes ?? 0;
  into.sessions += d?.sessions ?? 0;
}

/**
 * Antrea's stats aggregator (pkg/controller/stats): agents post NodeStatsSummary with the traffic
 * counted since their previous report, and the controller sums them per policy and per rule.
 * Every policy the controller knows is listed, with zeros until something is reported; a policy's
 * stats go when the policy goes.
 */
export class StatsAggregator {
  readonly #policies: Store<InternalNetworkPolicy>;
  readonly #clock: Clock;
  /** By source policy UID. */
  readonly #stats = new Map<string, PolicyStats>();
  #unsubscribe: (() => void) | undefined;

  constructor(policies: Store<InternalNetworkPolicy>, clock: Clock) {
    this.#policies = policies;
    this.#clock = clock;
  }

  start(): void {
    if (this.#unsubscribe) return;
    this.#unsubscribe = this.#policies.subscribe((ev) => {
      if (ev.type === 'DELETED') this.#stats.delete(ev.object.sourceRef.uid ?? ev.object.name);
    });
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  collect(summary: NodeStatsSummary): void {
    for (const list of [
      summary.networkPolicies,
      summary.antreaClusterNetworkPolicies,
      summary.antreaNetworkPolicies,
    ]) {
      for (const s of list ?? []) this.#collectOne(s);
    }
  }

  #collectOne(s: NetworkPolicyStats): void {
    const uid = s.networkPolicy?.uid;
    // Only policies the controller serves: stats for a deleted or unknown policy are dropped.
    if (!uid || !this.#policyByUid(uid)) return;
    const entry = this.#entry(uid);
    add(entry.traffic, s.trafficStats);
    for (const r of s.ruleTrafficStats ?? []) {
      const name = r.name ?? '';
      let t = entry.rules.get(name);
      if (!t) {
        t = zero();
        entry.rules.set(name, t);
      }
      add(t, r.trafficStats);
    }
  }

  #entry(uid: string): PolicyStats {
    let e = this.#stats.get(uid);
    if (!e) {
      e = { traffic: zero(), rules: new Map(), since: this.#clock.now().toISOString() };
      this.#stats.set(uid, e);
    }
    return e;
  }

  #policyByUid(uid: string): InternalNetworkPolicy | undefined {
    // Internal policies are named by their source UID.
    return this.#policies.get(uid)?.object;
  }

  list(res: StatsResource, namespace: string): ApiObject {
    const items: ApiObject[] = [];
    for (const { object: np } of this.#policies.list().items) {
      const ref = np.sourceRef;
      if (ref.type !== res.type) continue;
      if (namespace !== '' && ref.namespace !== namespace) continue;
      items.push(this.#object(res, ref));
    }
    items.sort((a, b) => key(a).localeCompare(key(b)));
    return { apiVersion: STATS_API_VERSION, kind: `${res.kind}List`, metadata: {}, items };
  }

  get(res: StatsResource, namespace: string, name: string): ApiObject | undefined {
    for (const { object: np } of this.#policies.list().items) {
      const ref = np.sourceRef;
      if (ref.type === res.type && ref.name === name && (ref.namespace ?? '') === namespace) {
        return this.#object(res, ref);
      }
    }
    return undefined;
  }

  #object(res: StatsResource, ref: NetworkPolicyReference): ApiObject {
    const uid = ref.uid ?? '';
    const e = this.#stats.get(uid) ?? this.#entry(uid);
    const out: ApiObject = {
      apiVersion: STATS_API_VERSION,
      kind: res.kind,
      metadata: {
        name: ref.name,
        ...(res.namespaced ? { namespace: ref.namespace ?? '' } : {}),
        uid,
        creationTimestamp: e.since,
      },
      trafficStats: { ...e.traffic },
    };
    if (res.rules) {
      out.ruleTrafficStats = [...e.rules]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, t]) => ({ name, trafficStats: { ...t } }));
    }
    return out;
  }
}

function key(o: ApiObject): string {
  const m = o.metadata as { name: string; namespace?: string };
  return `${m.namespace ?? ''}/${m.name}`;
}
