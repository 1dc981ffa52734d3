import {
  ANTREA_ENTERPRISE_ID,
  type FieldValue,
  IANA_ENTERPRISE_ID,
  IANA_REVERSE_ENTERPRISE_ID,
  type InfoElement,
  IpfixError,
  infoElement,
  type TemplateRecord,
} from '@antrea-ts/ipfix';
import { AGGREGATED_ELEMENTS } from '../aggregation.js';
import type { FlowValues } from '../flow-record.js';

/** The template id of the aggregated IPv4 records (the first an exporting process hands out). */
export const AGGREGATED_IPV4_TEMPLATE_ID = 256;

/**
 * The elements of antrea-agent's IPv4 template, in its order: the aggregated records carry them
 * on, followed by the aggregation's own.
 */
export const AGENT_IPV4_ELEMENTS: readonly string[] = [
  'flowStartSeconds',
  'flowEndSeconds',
  'flowEndReason',
  'sourceTransportPort',
  'destinationTransportPort',
  'protocolIdentifier',
  'packetTotalCount',
  'octetTotalCount',
  'packetDeltaCount',
  'octetDeltaCount',
  'sourceIPv4Address',
  'destinationIPv4Address',
  'reversePacketTotalCount',
  'reverseOctetTotalCount',
  'reversePacketDeltaCount',
  'reverseOctetDeltaCount',
  'sourcePodName',
  'sourcePodNamespace',
  'sourceNodeName',
  'destinationPodName',
  'destinationPodNamespace',
  'destinationNodeName',
  'destinationServicePort',
  'destinationServicePortName',
  'ingressNetworkPolicyName',
  'ingressNetworkPolicyNamespace',
  'ingressNetworkPolicyType',
  'ingressNetworkPolicyRuleName',
  'ingressNetworkPolicyRuleAction',
  'egressNetworkPolicyName',
  'egressNetworkPolicyNamespace',
  'egressNetworkPolicyType',
  'egressNetworkPolicyRuleName',
  'egressNetworkPolicyRuleAction',
  'tcpState',
  'flowType',
  'egressName',
  'egressIP',
  'egressNodeName',
  'proxySnatPort',
  'destinationClusterIPv4',
  'proxySnatIPv4',
  'destinationServiceIPv4',
];

/** recordContents.podLabels adds these (JSON objects of the Pods' labels). */
export const POD_LABEL_ELEMENTS = ['sourcePodLabels', 'destinationPodLabels'];

const ENTERPRISES = [IANA_ENTERPRISE_ID, IANA_REVERSE_ENTERPRISE_ID, ANTREA_ENTERPRISE_ID];

/** The element `name` in whichever registry (IANA, RFC 5103 reverse, Antrea) defines it. */
export function elementNamed(name: string): InfoElement {
  for (const enterprise of ENTERPRISES) {
    try {
      return infoElement(name, enterprise);
    } catch (err) {
      if (!IpfixError.is(err) || err.code !== 'IPFIX_UNKNOWN_ELEMENT') throw err;
    }
  }
  throw new IpfixError('IPFIX_UNKNOWN_ELEMENT', `no registry defines ${name}`);
}

export function aggregatedTemplate(podLabels: boolean): TemplateRecord {
  const names = [...AGENT_IPV4_ELEMENTS, ...AGGREGATED_ELEMENTS, ...(podLabels ? POD_LABEL_ELEMENTS : [])];
  return templateOf(AGGREGATED_IPV4_TEMPLATE_ID, names);
}

/** A template of `names` (an agent's, in tests and benchmarks). */
export function templateOf(templateId: number, names: readonly string[]): TemplateRecord {
  return Object.freeze({ templateId, elements: Object.freeze(names.map(elementNamed)) });
}

/** The value an absent element is sent as: zero, empty, or 0.0.0.0 for an address ("none"). */
function emptyValue(e: InfoElement): FieldValue {
  switch (e.type) {
    case 'string':
      return '';
    case 'ipv4Address':
      return '0.0.0.0';
    case 'ipv6Address':
      return '::';
    case 'unsigned64':
    case 'dateTimeMilliseconds':
      return 0n;
    case 'octetArray':
      return new Uint8Array(e.length === 0xffff ? 0 : e.length);
    default:
      return 0;
  }
}

/** `record` in template order. */
export function templateValues(t: TemplateRecord, record: Readonly<FlowValues>): FieldValue[] {
  return t.elements.map((e) => record[e.name] ?? emptyValue(e));
}
