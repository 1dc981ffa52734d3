import type { NetworkPolicyNodeStatus } from '@antrea-ts/apis';
import type { CrdNetworkPolicyCondition, CrdNetworkPolicyStatus } from '../inputs.js';
import type { InternalNetworkPolicy } from '../types.js';

/** Longest condition message before it is cut (Antrea maxConditionMessageLength). */
export const MAX_CONDITION_MESSAGE_LENGTH = 256;

export interface StatusComputation {
  readonly status: CrdNetworkPolicyStatus;
  /** Nodes whose reports no longer matter (outside the span): the caller forgets them. */
  readonly staleNodes: readonly string[];
}

/**
 * The status Antrea's StatusController writes on an Antrea-native policy (syncHandler):
 * desired = Nodes in the span, current = those that reported the current generation without
 * failure; Realized when all did, Failed when the rest all failed, Realizing otherwise; Pending
 * when the policy could not be computed.
 */
export function computePolicyStatus(
  policy: InternalNetworkPolicy,
  reports: Iterable<NetworkPolicyNodeStatus>,
  now: Date,
): StatusComputation {
  const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const build = (
    phase: CrdNetworkPolicyStatus['phase'],
    current: number,
    desired: number,
    conditions: CrdNetworkPolicyCondition[],
  ): CrdNetworkPolicyStatus => ({
    phase,
    observedGeneration: policy.generation,
    currentNodesRealized: current,
    desiredNodesRealized: desired,
    conditions,
  });
  if (policy.syncError) {
    return {
      status: build('Pending', 0, 0, [
        {
          type: 'Realizable',
          status: 'False',
          lastTransitionTime: ts,
          reason: 'NetworkPolicyAppliedToUnsupportedGroup',
          message: policy.syncError,
        },
      ]),
      staleNodes: [],
    };
  }
  const conditions: CrdNetworkPolicyCondition[] = [
    { type: 'Realizable', status: 'True', lastTransitionTime: ts },
  ];
  const desired = policy.span.size;
  let current = 0;
  const failed: string[] = [];
  const stale: string[] = [];
  for (const r of reports) {
    if (!policy.span.has(r.nodeName)) {
      stale.push(r.nodeName);
      continue;
    }
    // Reports for an older generation say nothing about the current one.
    if (r.generation !== policy.generation) continue;
    if (r.realizationFailure) failed.push(`"${r.nodeName}":"${r.message ?? ''}"`);
    else current++;
  }
  if (failed.length > 0) {
    failed.sort();
    let message = `Failed Nodes count ${failed.length}: ${failed.join(', ')}`;
    if (message.length > MAX_CONDITION_MESSAGE_LENGTH)
      message = `${message.slice(0, MAX_CONDITION_MESSAGE_LENGTH)}...`;
    conditions.push({
      type: 'RealizationFailure',
      status: 'True',
      lastTransitionTime: ts,
      reason: 'NetworkPolicyRealizationFailedOnNode',
      message,
    });
  }
  let phase: CrdNetworkPolicyStatus['phase'] = 'Realizing';
  if (current === desired) phase = 'Realized';
  else if (current + failed.length === desired) phase = 'Failed';
  return { status: build(phase, current, desired, conditions), staleNodes: stale };
}

/** Status equality that ignores condition timestamps (Antrea NetworkPolicyStatusEqual). */
export function sameStatus(a: CrdNetworkPolicyStatus | undefined, b: CrdNetworkPolicyStatus): boolean {
  if (!a) return false;
  if (
    a.phase !== b.phase ||
    a.observedGeneration !== b.observedGeneration ||
    a.currentNodesRealized !== b.currentNodesRealized ||
    a.desiredNodesRealized !== b.desiredNodesRealized ||
    (a.conditions?.length ?? 0) !== b.conditions.length
  )
    return false;
  return b.conditions.every((c, i) => {
    const o = a.conditions[i]!;
    return (
      o.type === c.type &&
      o.status === c.status &&
      (o.reason ?? '') === (c.reason ?? '') &&
      (o.message ?? '') === (c.message ?? '')
    );
  });
}
