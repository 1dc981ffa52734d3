import type { FlowValues } from '../flow-record.js';

/** What the aggregator knows of a Pod. */
export interface PodInfo {
  readonly name: string;
  readonly namespace: string;
  readonly nodeName: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** Pods by IP and by name; the real one is a Pod informer, tests use a map. */
export interface PodMetadata {
  byIp(ip: string): PodInfo | undefined;
  get(namespace: string, name: string): PodInfo | undefined;
}

const SIDES = [
  { pod: 'sourcePod', node: 'sourceNodeName', ips: ['sourceIPv4Address', 'sourceIPv6Address'] },
  {
    pod: 'destinationPod',
    node: 'destinationNodeName',
    ips: ['destinationIPv4Address', 'destinationIPv6Address'],
  },
] as const;

/**
 * Completes an aggregated record before export, as Antrea's Flow Aggregator does from its Pod
 * informer: an end with no Pod name whose address is a Pod's gets that Pod, its namespace and Node
 * (a flow the other Node never reported); with `podLabels`, `sourcePodLabels` and
 * `destinationPodLabels` carry the Pods' labels as a JSON object ("" for an end that is no Pod).
 * Done at export, not on arrival, so that which Node sent a half still shows in its Pod fields.
 */
export function fillPodMetadata(record: FlowValues, pods: PodMetadata, podLabels: boolean): void {
  for (const side of SIDES) {
    const nameField = `${side.pod}Name`;
    const namespaceField = `${side.pod}Namespace`;
    let pod: PodInfo | undefined;
    const name = record[nameField];
    if (typeof name === 'string' && name !== '') {
      // A named end needs its Pod only for the labels.
      if (podLabels) pod = pods.get(String(record[namespaceField] ?? ''), name);
    } else {
      const ip = side.ips.map((f) => record[f]).find((v): v is string => typeof v === 'string' && v !== '');
      pod = ip === undefined ? undefined : pods.byIp(ip);
      if (pod) {
        record[nameField] = pod.name;
        record[namespaceField] = pod.namespace;
        record[side.node] = pod.nodeName;
      }
    }
    if (podLabels) record[`${side.pod}Labels`] = pod ? JSON.stringify(pod.labels) : '';
  }
}
