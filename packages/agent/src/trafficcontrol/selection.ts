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

/** A TrafficControl's appliedTo, its selectors compiled once per sync rather than once per Pod. */
function matcher(to: TrafficControlAppliedTo): (pod: LocalPod, nsLabels: Labels | undefined) => boolean {
  if (!to.podSelector && !to.namespaceSelector) return () => false;
  const ns = to.namespaceSelector && compileSelector(to.namespaceSelector);
  const pods = to.podSelector && compileSelector(to.podSelector);
  return (pod, nsLabels) =>
    (!ns || (nsLabels !== undefined && ns.matches(nsLabels))) && (!pods || pods.matches(pod.labels));
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
  const matchers = sorted.map((tc) => ({
    name: tc.metadata.name ?? '',
    matches: matcher(tc.spec.appliedTo),
  }));
  for (const { name } of matchers) out.set(name, []);
  for (const pod of pods) {
    if (pod.ofport === undefined) continue;
    const nsLabels = namespaceLabels(pod.namespace);
    const tc = matchers.find((m) => m.matches(pod, nsLabels));
    if (tc) out.get(tc.name)?.push(pod.ofport);
  }
  return out;
}
