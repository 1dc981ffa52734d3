import { type FlowValues, num, str } from '../flow-record.js';

const PROTOCOLS: Readonly<Record<number, string>> = {
  1: 'ICMP',
  6: 'TCP',
  17: 'UDP',
  58: 'IPv6-ICMP',
  132: 'SCTP',
};
const RULE_ACTIONS = ['', 'Allow', 'Drop', 'Reject'];
const POLICY_TYPES = ['', 'K8sNetworkPolicy', 'AntreaNetworkPolicy', 'AntreaClusterNetworkPolicy'];

const pretty = (names: readonly string[], v: number): string => names[v] ?? 'Invalid';

/**
 * One flow as Antrea's flow logger writes it: 31 comma-separated fields (times, 5-tuple, Pods,
 * Nodes, Service, both rules, Egress), with `prettyPrint` naming the protocol, rule actions and
 * policy types instead of numbering them.
 */
export function flowLogLine(r: Readonly<FlowValues>, prettyPrint: boolean): string {
  const protocol = num(r, 'protocolIdentifier');
  const code = (field: string, names: readonly string[]): string =>
    prettyPrint ? pretty(names, num(r, field)) : String(num(r, field));
  const v6 = str(r, 'sourceIPv6Address') !== '';
  return [
    String(num(r, 'flowStartSeconds')),
    String(num(r, 'flowEndSeconds')),
    str(r, v6 ? 'sourceIPv6Address' : 'sourceIPv4Address'),
    str(r, v6 ? 'destinationIPv6Address' : 'destinationIPv4Address'),
    String(num(r, 'sourceTransportPort')),
    String(num(r, 'destinationTransportPort')),
    prettyPrint ? (PROTOCOLS[protocol] ?? 'Unknown Protocol') : String(protocol),
    str(r, 'sourcePodName'),
    str(r, 'sourcePodNamespace'),
    str(r, 'sourceNodeName'),
    str(r, 'destinationPodName'),
    str(r, 'destinationPodNamespace'),
    str(r, 'destinationNodeName'),
    str(r, v6 ? 'destinationClusterIPv6' : 'destinationClusterIPv4'),
    String(num(r, 'destinationServicePort')),
    str(r, 'destinationServicePortName'),
    str(r, 'ingressNetworkPolicyName'),
    str(r, 'ingressNetworkPolicyNamespace'),
    str(r, 'ingressNetworkPolicyRuleName'),
    code('ingressNetworkPolicyRuleAction', RULE_ACTIONS),
    code('ingressNetworkPolicyType', POLICY_TYPES),
    str(r, 'egressNetworkPolicyName'),
    str(r, 'egressNetworkPolicyNamespace'),
    str(r, 'egressNetworkPolicyRuleName'),
    code('egressNetworkPolicyRuleAction', RULE_ACTIONS),
    code('egressNetworkPolicyType', POLICY_TYPES),
    str(r, 'egressName'),
    str(r, 'egressIP'),
    str(r, 'appProtocolName'),
    str(r, 'httpVals'),
    str(r, 'egressNodeName'),
  ].join(',');
}

export type RuleActionName = 'None' | 'Allow' | 'Drop' | 'Reject';
const ACTION_CODES: Readonly<Record<RuleActionName, number>> = { None: 0, Allow: 1, Drop: 2, Reject: 3 };

/** flowLogger.filters entry: each list, when given, must contain the record's action. */
export interface FlowFilter {
  readonly ingressNetworkPolicyRuleActions?: readonly RuleActionName[];
  readonly egressNetworkPolicyRuleActions?: readonly RuleActionName[];
}

/** The filters are OR-ed; no filters keep every record. */
export function matchesFilters(r: Readonly<FlowValues>, filters: readonly FlowFilter[]): boolean {
  if (filters.length === 0) return true;
  const holds = (actions: readonly RuleActionName[] | undefined, field: string): boolean =>
    !actions?.length || actions.some((a) => ACTION_CODES[a] === num(r, field));
  return filters.some(
    (f) =>
      holds(f.ingressNetworkPolicyRuleActions, 'ingressNetworkPolicyRuleAction') &&
      holds(f.egressNetworkPolicyRuleActions, 'egressNetworkPolicyRuleAction'),
  );
}
