import type { FlowValues } from './flow-record.js';

/** Strings the other Node's half fills when this half has them empty. */
const STRING_FIELDS = [
  'sourcePodName',
  'sourcePodNamespace',
  'sourceNodeName',
  'destinationPodName',
  'destinationPodNamespace',
  'destinationNodeName',
  'destinationServicePortName',
  'ingressNetworkPolicyName',
  'ingressNetworkPolicyNamespace',
  'ingressNetworkPolicyRuleName',
  'egressNetworkPolicyName',
  'egressNetworkPolicyNamespace',
  'egressNetworkPolicyRuleName',
];
/** Numbers where 0 means "not known on this Node". */
const NUMBER_FIELDS = [
  'destinationServicePort',
  'ingressNetworkPolicyRuleAction',
  'ingressNetworkPolicyType',
  'egressNetworkPolicyRuleAction',
  'egressNetworkPolicyType',
];
/** Addresses where 0.0.0.0 (or ::) means "none": only the source Node saw the ClusterIP. */
const ADDRESS_FIELDS = [
  'destinationClusterIPv4',
  'destinationServiceIPv4',
  'destinationClusterIPv6',
  'destinationServiceIPv6',
];
const UNSET_ADDRESSES = new Set(['0.0.0.0', '::']);

/**
 * Merges the other Node's half into `into`: every field the incoming half knows replaces the
 * existing one, so the merged record is the same whichever half came first. The source Node gives
 * the source Pod, its egress rule and the Service (it alone saw the DNAT); the destination Node
 * the destination Pod and its ingress rule.
 */
export function correlate(into: FlowValues, incoming: FlowValues): void {
  for (const f of STRING_FIELDS) {
    const v = incoming[f];
    if (typeof v === 'string' && v !== '') into[f] = v;
  }
  for (const f of NUMBER_FIELDS) {
    const v = incoming[f];
    if (typeof v === 'number' && v !== 0) into[f] = v;
  }
  for (const f of ADDRESS_FIELDS) {
    const v = incoming[f];
    if (typeof v === 'string' && !UNSET_ADDRESSES.has(v)) into[f] = v;
  }
}
