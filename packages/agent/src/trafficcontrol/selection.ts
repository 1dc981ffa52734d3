import {
  compileSelector,
  type Labels,
  type TrafficControl,
  type TrafficControlAppliedTo,
} from '@antrea-ts/apis';

/** A Pod of this Node as TrafficControl selection sees it. */
export interface LocalPod {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  /** Its OVS port; undefined while the Pod has no interface on this Node. */
  readonly ofport: number | undefined;
}

function selects(to: TrafficControlAppliedTo, pod: LocalPod, nsLabels: Labels | undefined): boolean {
  if (!to.podSelector && !to.namespaceSelector) return false;
  if (to.namespaceSelector && (!nsLabels || !compileSelector(to.namespaceSelector).matches(nsLabels))) {
    return false;
  }
  return !to.podSelector || compileSelector(to.podSelector).matches(pod.labels);
}

/**
 * The ofports each TrafficControl marks on this Node. A Pod's packets can take one TrafficControl
 * only (the marks share registers), so a Pod several select goes to the first by name; Antrea keeps
 * the first that bound it, which depends on event order. Pods without an interface are skipped.
 */
export function selectPorts(
  tcs: readonly TrafficControl[],
  pods: readonly LocalPod[],
  namespaceLabels: (namespace: string) => Labels | undefined,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const sorted = [...tcs].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  for (const tc of sorted) out.set(tc.metadata.name ?? '', []);
  for (const pod of pods) {
    if (pod.ofport === undefined) continue;
    const tc = sorted.find((t) => selects(t.spec.appliedTo, pod, namespaceLabels(pod.namespace)));
    if (tc) out.get(tc.metadata.name ?? '')?.push(pod.ofport);
  }
  return out;
}
