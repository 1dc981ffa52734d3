import type { CrdCondition, CustomResource, LabelSelector } from './meta.js';

// Egress and ExternalIPPool (crd.antrea.io/v1beta1): selected Pods' traffic to destinations outside
// the cluster leaves from one Node with a chosen source IP. Both kinds are cluster-scoped.

/** Pods an Egress applies to: podSelector within the Namespaces namespaceSelector picks. */
export interface EgressAppliedTo {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
}

/** Rate limit of an Egress (EgressTrafficShaping); accepted and stored, not enforced here. */
export interface EgressBandwidth {
  rate: string;
  burst: string;
}

export interface EgressSpec {
  appliedTo: EgressAppliedTo;
  /** The SNAT IP; with externalIPPool and no egressIP the controller allocates and writes it. */
  egressIP?: string;
  /** Dual-stack form (one per family); accepted by the schema, not acted on here. */
  egressIPs?: string[];
  externalIPPool?: string;
  externalIPPools?: string[];
  bandwidth?: EgressBandwidth;
}

/** IPAllocated is the controller's (pool allocation), IPAssigned the Egress Node agent's. */
export type EgressConditionType = 'IPAllocated' | 'IPAssigned';

export interface EgressStatus {
  egressNode?: string;
  egressIP?: string;
  conditions?: CrdCondition<EgressConditionType>[];
}

export interface Egress extends CustomResource<'Egress', 'crd.antrea.io/v1beta1'> {
  spec: EgressSpec;
  status?: EgressStatus;
}

/** One range of a pool: a CIDR or an inclusive start-end pair. */
export interface IPRange {
  cidr?: string;
  start?: string;
  end?: string;
}

/** The subnet of a pool's IPs when it is not the Node's (EgressSeparateSubnet); not acted on here. */
export interface SubnetInfo {
  gateway: string;
  prefixLength: number;
  vlan?: number;
}

export interface ExternalIPPoolSpec {
  ipRanges: IPRange[];
  subnetInfo?: SubnetInfo;
  /** Nodes that may hold this pool's IPs (an empty selector selects every Node). */
  nodeSelector: LabelSelector;
}

export interface IPPoolUsage {
  total: number;
  used: number;
}

export interface ExternalIPPoolStatus {
  usage?: IPPoolUsage;
}

export interface ExternalIPPool extends CustomResource<'ExternalIPPool', 'crd.antrea.io/v1beta1'> {
  spec: ExternalIPPoolSpec;
  status?: ExternalIPPoolStatus;
}

/** Reasons Antrea writes in the Egress conditions. */
export const EGRESS_CONDITION_REASONS = Object.freeze({
  allocated: 'Allocated',
  allocationError: 'AllocationError',
  assigned: 'Assigned',
  assignmentError: 'AssignmentError',
});

/**
 * `conditions` with `want` in place of the condition of its type, or undefined when that condition
 * already says the same (status, reason, message). lastTransitionTime is kept while the status
 * stays and is `now` (whole seconds, as metav1.Time) when it changes. Shared by the controller
 * (IPAllocated) and the agents (IPAssigned).
 */
export function withEgressCondition(
  conditions: readonly CrdCondition<EgressConditionType>[],
  want: Pick<CrdCondition<EgressConditionType>, 'type' | 'status' | 'reason' | 'message'>,
  now: Date,
): CrdCondition<EgressConditionType>[] | undefined {
  const have = conditions.find((c) => c.type === want.type);
  if (have?.status === want.status && have.reason === want.reason && have.message === want.message)
    return undefined;
  const lastTransitionTime =
    have?.status === want.status && have.lastTransitionTime
      ? have.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return [...conditions.filter((c) => c.type !== want.type), { ...want, lastTransitionTime }];
}
