import type { NetworkPolicy } from '@antrea-ts/apis';
import type { NetworkPolicyController } from '../networkpolicy/network-policy-controller.js';

/** antctl's --type shorthands and the source types they select (Antrea's querier map). */
const POLICY_TYPES: Readonly<Record<string, string>> = {
  K8SNP: 'K8sNetworkPolicy',
  ACNP: 'AntreaClusterNetworkPolicy',
  ANNP: 'AntreaNetworkPolicy',
  ANP: 'AdminNetworkPolicy',
  BANP: 'BaselineAdminNetworkPolicy',
};

export interface PolicyFilter {
  /** The internal name (the source UID), as `get netpol NAME` gives it. */
  readonly name?: string;
  /** The source policy's name. */
  readonly source?: string;
  readonly namespace?: string;
  /** K8sNP, ACNP, ANNP, ANP, BANP (any case). */
  readonly type?: string;
  /** "namespace/name" of a local Pod the policy applies to. */
  readonly pod?: string;
}

/** Thrown for a --type value antctl would not send. */
export class UnknownPolicyTypeError extends Error {}

/** The policies this agent received that match every given filter, sorted by name. */
export function queryPolicies(
  policy: Pick<NetworkPolicyController, 'cache'>,
  filter: PolicyFilter,
): NetworkPolicy[] {
  const cache = policy.cache;
  let type: string | undefined;
  if (filter.type !== undefined && filter.type !== '') {
    type = POLICY_TYPES[filter.type.toUpperCase()];
    if (type === undefined) throw new UnknownPolicyTypeError(`unknown policy type ${filter.type}`);
  }
  let onPod: Set<string> | undefined;
  if (filter.pod !== undefined && filter.pod !== '') {
    onPod = new Set();
    for (const r of cache.rules()) {
      if (r.appliedTo.some((a) => `${a.pod.namespace}/${a.pod.name}` === filter.pod))
        onPod.add(r.policy.metadata.name);
    }
  }
  return cache
    .policyNames()
    .sort()
    .map((n) => cache.policy(n) as NetworkPolicy)
    .filter((p) => {
      const ref = p.sourceRef;
      if (filter.name && p.metadata.name !== filter.name) return false;
      if (filter.source && ref?.name !== filter.source) return false;
      if (filter.namespace && ref?.namespace !== filter.namespace) return false;
      if (type && ref?.type !== type) return false;
      if (onPod && !onPod.has(p.metadata.name)) return false;
      return true;
    });
}
