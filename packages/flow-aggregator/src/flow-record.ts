import type { FieldValue } from '@antrea-ts/ipfix';

/** One flow record by information element name, as the collecting process decoded it. */
export type FlowValues = Record<string, FieldValue>;

/** Antrea's flowType values (go-ipfix registry): which Nodes see the connection. */
export const FlowType = {
  Unspecified: 0,
  IntraNode: 1,
  InterNode: 2,
  ToExternal: 3,
  FromExternal: 4,
} as const;

/** Antrea's NetworkPolicy rule actions as records carry them. */
export const RuleAction = { NoAction: 0, Allow: 1, Drop: 2, Reject: 3 } as const;

export const str = (v: FlowValues, name: string): string => {
  const x = v[name];
  return typeof x === 'string' ? x : '';
};

export const num = (v: FlowValues, name: string): number => {
  const x = v[name];
  return typeof x === 'number' ? x : typeof x === 'bigint' ? Number(x) : 0;
};

export const big = (v: FlowValues, name: string): bigint => {
  const x = v[name];
  return typeof x === 'bigint' ? x : typeof x === 'number' ? BigInt(x) : 0n;
};

/**
 * The connection a record belongs to: both Nodes report the same 5-tuple for an inter-Node
 * connection (the source Node's record is post-DNAT, so a ClusterIP connection is keyed by its
 * endpoint too).
 */
export function flowKey(v: FlowValues): string {
  const src = str(v, 'sourceIPv4Address') || str(v, 'sourceIPv6Address');
  const dst = str(v, 'destinationIPv4Address') || str(v, 'destinationIPv6Address');
  return `${src}|${num(v, 'sourceTransportPort')}|${dst}|${num(v, 'destinationTransportPort')}|${num(v, 'protocolIdentifier')}`;
}

/** The source Node's half of an inter-Node connection: it knows the source Pod only. */
export const isFromSourceNode = (v: FlowValues): boolean =>
  str(v, 'sourcePodName') !== '' && str(v, 'destinationPodName') === '';

/** The destination Node's half: it knows the destination Pod only. */
export const isFromDestinationNode = (v: FlowValues): boolean =>
  str(v, 'destinationPodName') !== '' && str(v, 'sourcePodName') === '';

/**
 * Whether the record waits for the other Node's half. Not for connections a policy dropped or
 * rejected on the way out, or rejected on the way in: the other Node never sees those (as Antrea).
 */
export function needsCorrelation(v: FlowValues): boolean {
  const egress = num(v, 'egressNetworkPolicyRuleAction');
  if (egress === RuleAction.Drop || egress === RuleAction.Reject) return false;
  if (num(v, 'ingressNetworkPolicyRuleAction') === RuleAction.Reject) return false;
  return num(v, 'flowType') === FlowType.InterNode;
}
