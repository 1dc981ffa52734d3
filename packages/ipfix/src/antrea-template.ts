import type { TemplateRecord } from './codec/message.js';
import { elementNamed } from './registry.js';

/** The template id of antrea-agent's IPv4 records (the first an exporting process hands out). */
export const ANTREA_IPV4_TEMPLATE_ID = 256;

/**
 * The elements of antrea-agent's IPv4 template, element for element in Antrea's order
 * (pkg/agent/flowexporter/exporter/ipfix.go): IANA elements, their RFC 5103 reverse counters,
 * then Antrea's. Collectors such as the Flow Aggregator look fields up by name, but the order
 * keeps our records byte-comparable with Antrea's. The Flow Aggregator's aggregated template
 * starts with the same list.
 */
export const ANTREA_AGENT_IPV4_ELEMENTS: readonly string[] = Object.freeze([
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
]);

/** A template of the elements `names` (looked up with elementNamed). */
export function templateOf(templateId: number, names: readonly string[]): TemplateRecord {
  return Object.freeze({ templateId, elements: Object.freeze(names.map(elementNamed)) });
}

/** antrea-agent's IPv4 template. */
export const ANTREA_AGENT_IPV4_TEMPLATE: TemplateRecord = templateOf(
  ANTREA_IPV4_TEMPLATE_ID,
  ANTREA_AGENT_IPV4_ELEMENTS,
);
