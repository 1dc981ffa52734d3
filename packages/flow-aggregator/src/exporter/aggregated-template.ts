import {
  ANTREA_AGENT_IPV4_ELEMENTS,
  type FieldValue,
  type InfoElement,
  type TemplateRecord,
  templateOf,
} from '@antrea-ts/ipfix';
import { AGGREGATED_ELEMENTS } from '../aggregation.js';
import type { FlowValues } from '../flow-record.js';

/** The template id of the aggregated IPv4 records (the first an exporting process hands out). */
export const AGGREGATED_IPV4_TEMPLATE_ID = 256;

/** recordContents.podLabels adds these (JSON objects of the Pods' labels). */
export const POD_LABEL_ELEMENTS = ['sourcePodLabels', 'destinationPodLabels'];

/**
 * The aggregated records carry the elements of antrea-agent's IPv4 template on
 * (ANTREA_AGENT_IPV4_ELEMENTS), followed by the aggregation's own.
 */
export function aggregatedTemplate(podLabels: boolean): TemplateRecord {
  const names = [
    ...ANTREA_AGENT_IPV4_ELEMENTS,
    ...AGGREGATED_ELEMENTS,
    ...(podLabels ? POD_LABEL_ELEMENTS : []),
  ];
  return templateOf(AGGREGATED_IPV4_TEMPLATE_ID, names);
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
