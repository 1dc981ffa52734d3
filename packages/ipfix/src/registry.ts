import { IpfixError } from './errors.js';

/**
 * Information elements: the IANA subset Antrea's flow exporter sends, their RFC 5103 reverse
 * forms, and Antrea's enterprise elements (private enterprise number 56506) with the ids and
 * types of the registry Antrea's exporters and the Flow Aggregator share (go-ipfix
 * pkg/registry). A collector that knows Antrea's registry decodes our records unchanged.
 */

/** IANA "IPFIX Information Element Data Types" numbers (RFC 7012 section 3.1). */
export const DataType = {
  octetArray: 0,
  unsigned8: 1,
  unsigned16: 2,
  unsigned32: 3,
  unsigned64: 4,
  signed32: 7,
  string: 13,
  dateTimeSeconds: 14,
  dateTimeMilliseconds: 15,
  ipv4Address: 18,
  ipv6Address: 19,
} as const;
export type DataTypeName = keyof typeof DataType;

/** Field length that marks a variable-length field in a template (RFC 7011 section 7). */
export const VARIABLE_LENGTH = 0xffff;

export const IANA_ENTERPRISE_ID = 0;
/** RFC 5103: reverse direction elements carry this private enterprise number. */
export const IANA_REVERSE_ENTERPRISE_ID = 29305;
export const ANTREA_ENTERPRISE_ID = 56506;

export interface InfoElement {
  readonly name: string;
  readonly id: number;
  /** 0 for IANA elements. */
  readonly enterprise: number;
  readonly type: DataTypeName;
  /** Encoded length in a template: fixed size, or VARIABLE_LENGTH. */
  readonly length: number;
}

const FIXED_LENGTH: Readonly<Record<DataTypeName, number>> = {
  octetArray: VARIABLE_LENGTH,
  unsigned8: 1,
  unsigned16: 2,
  unsigned32: 4,
  unsigned64: 8,
  signed32: 4,
  string: VARIABLE_LENGTH,
  dateTimeSeconds: 4,
  dateTimeMilliseconds: 8,
  ipv4Address: 4,
  ipv6Address: 16,
};

const ie = (name: string, id: number, enterprise: number, type: DataTypeName, length?: number): InfoElement =>
  Object.freeze({ name, id, enterprise, type, length: length ?? FIXED_LENGTH[type] });

/** IANA elements (https://www.iana.org/assignments/ipfix), only those Antrea's records use. */
const IANA: readonly InfoElement[] = [
  ie('octetDeltaCount', 1, 0, 'unsigned64'),
  ie('packetDeltaCount', 2, 0, 'unsigned64'),
  ie('protocolIdentifier', 4, 0, 'unsigned8'),
  ie('sourceTransportPort', 7, 0, 'unsigned16'),
  ie('sourceIPv4Address', 8, 0, 'ipv4Address'),
  ie('destinationTransportPort', 11, 0, 'unsigned16'),
  ie('destinationIPv4Address', 12, 0, 'ipv4Address'),
  ie('sourceIPv6Address', 27, 0, 'ipv6Address'),
  ie('destinationIPv6Address', 28, 0, 'ipv6Address'),
  ie('octetTotalCount', 85, 0, 'unsigned64'),
  ie('packetTotalCount', 86, 0, 'unsigned64'),
  ie('flowEndReason', 136, 0, 'unsigned8'),
  ie('flowStartSeconds', 150, 0, 'dateTimeSeconds'),
  ie('flowEndSeconds', 151, 0, 'dateTimeSeconds'),
  ie('flowStartMilliseconds', 152, 0, 'dateTimeMilliseconds'),
  ie('flowEndMilliseconds', 153, 0, 'dateTimeMilliseconds'),
];

/** Counters have a reverse (reply direction) form: same id, enterprise 29305, name `reverseX`. */
const REVERSIBLE = ['octetDeltaCount', 'packetDeltaCount', 'octetTotalCount', 'packetTotalCount'];

const reverseName = (name: string): string => `reverse${name[0]!.toUpperCase()}${name.slice(1)}`;

const IANA_REVERSE: readonly InfoElement[] = IANA.filter((e) => REVERSIBLE.includes(e.name)).map((e) =>
  ie(reverseName(e.name), e.id, IANA_REVERSE_ENTERPRISE_ID, e.type),
);

const A = ANTREA_ENTERPRISE_ID;
/** Antrea's enterprise elements: ids and types as Antrea's registry defines them. */
const ANTREA: readonly InfoElement[] = [
  ie('sourcePodNamespace', 100, A, 'string'),
  ie('sourcePodName', 101, A, 'string'),
  ie('destinationPodNamespace', 102, A, 'string'),
  ie('destinationPodName', 103, A, 'string'),
  ie('sourceNodeName', 104, A, 'string'),
  ie('destinationNodeName', 105, A, 'string'),
  ie('destinationClusterIPv4', 106, A, 'ipv4Address'),
  ie('destinationClusterIPv6', 107, A, 'ipv6Address'),
  ie('destinationServicePort', 108, A, 'unsigned16'),
  ie('destinationServicePortName', 109, A, 'string'),
  ie('ingressNetworkPolicyName', 110, A, 'string'),
  ie('ingressNetworkPolicyNamespace', 111, A, 'string'),
  ie('egressNetworkPolicyName', 112, A, 'string'),
  ie('egressNetworkPolicyNamespace', 113, A, 'string'),
  ie('ingressNetworkPolicyUID', 114, A, 'string'),
  ie('ingressNetworkPolicyType', 115, A, 'unsigned8'),
  ie('ingressNetworkPolicyRulePriority', 116, A, 'signed32'),
  ie('egressNetworkPolicyUID', 117, A, 'string'),
  ie('egressNetworkPolicyType', 118, A, 'unsigned8'),
  ie('egressNetworkPolicyRulePriority', 119, A, 'signed32'),
  ie('packetTotalCountFromSourceNode', 120, A, 'unsigned64'),
  ie('octetTotalCountFromSourceNode', 121, A, 'unsigned64'),
  ie('packetDeltaCountFromSourceNode', 122, A, 'unsigned64'),
  ie('octetDeltaCountFromSourceNode', 123, A, 'unsigned64'),
  ie('reversePacketTotalCountFromSourceNode', 124, A, 'unsigned64'),
  ie('reverseOctetTotalCountFromSourceNode', 125, A, 'unsigned64'),
  ie('reversePacketDeltaCountFromSourceNode', 126, A, 'unsigned64'),
  ie('reverseOctetDeltaCountFromSourceNode', 127, A, 'unsigned64'),
  ie('packetTotalCountFromDestinationNode', 128, A, 'unsigned64'),
  ie('octetTotalCountFromDestinationNode', 129, A, 'unsigned64'),
  ie('packetDeltaCountFromDestinationNode', 130, A, 'unsigned64'),
  ie('octetDeltaCountFromDestinationNode', 131, A, 'unsigned64'),
  ie('reversePacketTotalCountFromDestinationNode', 132, A, 'unsigned64'),
  ie('reverseOctetTotalCountFromDestinationNode', 133, A, 'unsigned64'),
  ie('reversePacketDeltaCountFromDestinationNode', 134, A, 'unsigned64'),
  ie('reverseOctetDeltaCountFromDestinationNode', 135, A, 'unsigned64'),
  ie('tcpState', 136, A, 'string'),
  ie('flowType', 137, A, 'unsigned8'),
  ie('tcpStatePrevList', 138, A, 'string'),
  ie('ingressNetworkPolicyRuleAction', 139, A, 'unsigned8'),
  ie('egressNetworkPolicyRuleAction', 140, A, 'unsigned8'),
  ie('ingressNetworkPolicyRuleName', 141, A, 'string'),
  ie('egressNetworkPolicyRuleName', 142, A, 'string'),
  ie('sourcePodLabels', 143, A, 'string'),
  ie('destinationPodLabels', 144, A, 'string'),
  ie('throughput', 145, A, 'unsigned64'),
  ie('reverseThroughput', 146, A, 'unsigned64'),
  ie('throughputFromSourceNode', 147, A, 'unsigned64'),
  ie('throughputFromDestinationNode', 148, A, 'unsigned64'),
  ie('reverseThroughputFromSourceNode', 149, A, 'unsigned64'),
  ie('reverseThroughputFromDestinationNode', 150, A, 'unsigned64'),
  ie('flowEndSecondsFromSourceNode', 151, A, 'dateTimeSeconds'),
  ie('flowEndSecondsFromDestinationNode', 152, A, 'dateTimeSeconds'),
  ie('egressName', 153, A, 'string'),
  ie('egressIP', 154, A, 'string'),
  ie('appProtocolName', 155, A, 'string'),
  ie('httpVals', 156, A, 'string'),
  ie('egressNodeName', 157, A, 'string'),
  ie('clusterId', 158, A, 'string'),
  ie('sourcePodUUID', 159, A, 'octetArray', 16),
  ie('destinationPodUUID', 160, A, 'octetArray', 16),
  ie('sourceNodeUUID', 161, A, 'octetArray', 16),
  ie('destinationNodeUUID', 162, A, 'octetArray', 16),
  ie('destinationServiceUUID', 163, A, 'octetArray', 16),
  ie('ingressNetworkPolicyUUID', 164, A, 'octetArray', 16),
  ie('egressNetworkPolicyUUID', 165, A, 'octetArray', 16),
  ie('egressUUID', 166, A, 'octetArray', 16),
  ie('egressNodeUUID', 167, A, 'octetArray', 16),
  ie('destinationServiceIPv4', 168, A, 'ipv4Address'),
  ie('destinationServiceIPv6', 169, A, 'ipv6Address'),
  ie('proxySnatIPv4', 170, A, 'ipv4Address'),
  ie('proxySnatIPv6', 171, A, 'ipv6Address'),
  ie('proxySnatPort', 172, A, 'unsigned16'),
];

const ALL: readonly InfoElement[] = [...IANA, ...IANA_REVERSE, ...ANTREA];
const byName = new Map(ALL.map((e) => [`${e.enterprise}/${e.name}`, e]));
// Names are unique across the three registries (reverse elements are named reverse*).
const byNameAnyEnterprise = new Map(ALL.map((e) => [e.name, e]));
const byId = new Map(ALL.map((e) => [`${e.enterprise}/${e.id}`, e]));

/** The element `name` of `enterprise` (0: IANA); throws IPFIX_UNKNOWN_ELEMENT. */
export function infoElement(name: string, enterprise = IANA_ENTERPRISE_ID): InfoElement {
  const e = byName.get(`${enterprise}/${name}`);
  if (!e)
    throw new IpfixError(
      'IPFIX_UNKNOWN_ELEMENT',
      `no information element ${name} in enterprise ${enterprise}`,
    );
  return e;
}

/** The element `name` in whichever registry (IANA, RFC 5103 reverse, Antrea) defines it. */
export function elementNamed(name: string): InfoElement {
  const e = byNameAnyEnterprise.get(name);
  if (!e) throw new IpfixError('IPFIX_UNKNOWN_ELEMENT', `no registry defines ${name}`);
  return e;
}

/** The element with this id, or undefined (a decoder keeps unknown fields as raw bytes). */
export function infoElementById(id: number, enterprise: number): InfoElement | undefined {
  return byId.get(`${enterprise}/${id}`);
}

/** IANA flowEndReason values (RFC 5102 / IANA registry). */
export const FlowEndReason = {
  idleTimeout: 1,
  activeTimeout: 2,
  endOfFlow: 3,
  forcedEnd: 4,
  lackOfResources: 5,
} as const;
