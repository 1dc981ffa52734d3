import type { Labels, TrafficControl } from '@antrea-ts/apis';

/** A Pod of this Node: identity and labels (its port comes from the interface store). */
export interface LabeledPod {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  readonly hostNetwork: boolean;
}

/** TrafficControls, this Node's Pods and every Namespace's labels, from the API. */
export interface TrafficControlSource {
  /** Lists and watches; `changed` is called after every event. Resolves once all were listed. */
  start(changed: () => void): Promise<void>;
  stop(): Promise<void>;
  trafficControls(): TrafficControl[];
  pods(): LabeledPod[];
  namespaceLabels(namespace: string): Labels | undefined;
}
