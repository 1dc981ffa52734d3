// The antrea-controller scale workloads of Antrea's
// pkg/controller/networkpolicy/networkpolicy_controller_perf_test.go (its five Pod workloads and
// ANNPPerExternalEntity), regenerated object for object.
// Antrea draws names, IPs and Node assignment from an unseeded random source; this uses a seeded
// one so that runs are comparable. Counts and shapes are identical.
import type { V1Namespace, V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import type { CrdExternalEntity, CrdNetworkPolicy } from '#controller';

export interface Workload {
  namespaces: V1Namespace[];
  networkPolicies: V1NetworkPolicy[];
  pods: V1Pod[];
  antreaNetworkPolicies?: CrdNetworkPolicy[];
  externalEntities?: CrdExternalEntity[];
}

export class Rand {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** mulberry32 */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  intn(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** k8s.io/apimachinery/pkg/util/rand.String alphabet (no vowels, no confusable digits). */
  string(n: number): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    const chars: string[] = [];
    for (let i = 0; i < n; i++) chars.push(alphabet[this.intn(alphabet.length)]!);
    // join() yields a flat string, like the Go inputs; += would leave a rope per name.
    return chars.join('');
  }
  uuid(): string {
    const h = () => this.intn(0x10000).toString(16).padStart(4, '0');
    return [h() + h(), h(), `4${h().slice(1)}`, h(), h() + h() + h()].join('-');
  }
}

function newNamespace(name: string, labels: Record<string, string>): V1Namespace {
  return { metadata: { name, labels } };
}

function newPod(r: Rand, namespace: string, name: string, labels: Record<string, string>): V1Pod {
  const podIP = [r.intn(256), r.intn(256), r.intn(256), r.intn(256)].join('.');
  return {
    metadata: { namespace, name: name || ['pod', r.string(8)].join('-'), uid: r.uuid(), labels },
    spec: { nodeName: ['Node', r.intn(1000)].join('-'), hostNetwork: false, containers: [] },
    status: { podIP, podIPs: [{ ip: podIP }] },
  };
}

/** newNetworkPolicy: policyTypes always [Ingress, Egress]; one ingress peer when selectors are given. */
function newNetworkPolicy(
  r: Rand,
  namespace: string,
  name: string,
  podSelector: Record<string, string> | undefined,
  ingressPodSelector: Record<string, string> | undefined,
  ingressNamespaceSelector: Record<string, string> | undefined,
): V1NetworkPolicy {
  const np: V1NetworkPolicy = {
    metadata: { namespace, name: name || ['np', r.string(8)].join('-'), uid: r.uuid(), generation: 1 },
    spec: {
      podSelector: podSelector ? { matchLabels: podSelector } : {},
      policyTypes: ['Ingress', 'Egress'],
    },
  };
  if (ingressPodSelector || ingressNamespaceSelector) {
    const peer: Record<string, unknown> = {};
    if (ingressPodSelector) peer.podSelector = { matchLabels: ingressPodSelector };
    if (ingressNamespaceSelector) peer.namespaceSelector = { matchLabels: ingressNamespaceSelector };
    np.spec!.ingress = [{ _from: [peer] }];
  }
  return np;
}

function repeat(x: number, f: () => Workload): Workload {
  const w: Workload = { namespaces: [], networkPolicies: [], pods: [] };
  for (let i = 0; i < x; i++) {
    const o = f();
    w.namespaces.push(...o.namespaces);
    w.networkPolicies.push(...o.networkPolicies);
    w.pods.push(...o.pods);
  }
  return w;
}

/** 25k Namespaces, 75k NetworkPolicies, 100k Pods. */
export function smallNamespaces(r: Rand): Workload {
  return repeat(25000, () => {
    const ns = r.string(8);
    const l1 = { 'app-1': 'scale-1' };
    const l2 = { 'app-2': 'scale-2' };
    return {
      namespaces: [newNamespace(ns, { app: ns })],
      networkPolicies: [
        newNetworkPolicy(r, ns, 'default-deny-all', undefined, undefined, undefined),
        newNetworkPolicy(r, ns, 'np-1', l1, l1, undefined),
        newNetworkPolicy(r, ns, 'np-2', l2, l2, undefined),
      ],
      pods: [
        newPod(r, ns, 'pod1', l1),
        newPod(r, ns, 'pod2', l1),
        newPod(r, ns, 'pod3', l2),
        newPod(r, ns, 'pod4', l2),
      ],
    };
  });
}

/** 100 Namespaces, 10,100 NetworkPolicies, 100k Pods. */
export function largeNamespaces(r: Rand): Workload {
  return repeat(100, () => {
    const ns = r.string(8);
    const w: Workload = {
      namespaces: [newNamespace(ns, { app: ns })],
      networkPolicies: [newNetworkPolicy(r, ns, 'default-deny-all', undefined, undefined, undefined)],
      pods: [],
    };
    for (let i = 0; i < 100; i++) {
      const labels = { [`app-${i}`]: `scale-${i}` };
      w.networkPolicies.push(newNetworkPolicy(r, ns, `np-${i}`, labels, labels, undefined));
      for (let j = 0; j < 10; j++) w.pods.push(newPod(r, ns, `pod-${i}-${j}`, labels));
    }
    return w;
  });
}

/** 1 Namespace, 10k NetworkPolicies and 10k Pods; every policy selects every Pod. */
export function oneNamespace(r: Rand): Workload {
  const ns = r.string(8);
  const w = repeat(10000, () => ({
    namespaces: [newNamespace(ns, { app: ns })],
    networkPolicies: [newNetworkPolicy(r, ns, '', { 'app-1': 'scale-1' }, { 'app-1': 'scale-1' }, undefined)],
    pods: [newPod(r, ns, '', { 'app-1': 'scale-1' })],
  }));
  return { ...w, namespaces: w.namespaces.slice(0, 1) };
}

/** 1 Namespace, 10k Pods, 10k NetworkPolicies: each Pod accepts traffic from one other Pod. */
export function netpolPerPod(r: Rand): Workload {
  const ns = r.string(8);
  const w = repeat(5000, () => {
    const labels1 = { app: `scale-${r.string(8)}` };
    const labels2 = { app: `scale-${r.string(8)}` };
    return {
      namespaces: [newNamespace(ns, { app: ns })],
      networkPolicies: [
        newNetworkPolicy(r, ns, '', labels1, labels2, undefined),
        newNetworkPolicy(r, ns, '', labels2, labels1, undefined),
      ],
      pods: [newPod(r, ns, '', labels1), newPod(r, ns, '', labels2)],
    };
  });
  return { ...w, namespaces: w.namespaces.slice(0, 1) };
}

/** 1k Namespaces in 100 companies, 10k NetworkPolicies whose peers span 10 Namespaces, 100k Pods. */
export function clusterScoped(r: Rand): Workload {
  let i = 0;
  return repeat(1000, () => {
    const company = `company-${i % 100}`;
    i++;
    const ns = `${company}-${r.string(8)}`;
    const nsLabels = { company };
    const w: Workload = { namespaces: [newNamespace(ns, nsLabels)], networkPolicies: [], pods: [] };
    for (let j = 0; j < 10; j++) {
      const labels = { app: `scale-${j}` };
      w.networkPolicies.push(newNetworkPolicy(r, ns, `np-${j}`, labels, labels, nsLabels));
      for (let k = 0; k < 10; k++) w.pods.push(newPod(r, ns, `pod-${j}-${k}`, labels));
    }
    return w;
  });
}

function randomIP(r: Rand): string {
  return [r.intn(256), r.intn(256), r.intn(256), r.intn(256)].join('.');
}

/** newExternalEntity: one random endpoint IP, port TCP 8080 (unnamed), no externalNode. */
function newExternalEntity(r: Rand, namespace: string, labels: Record<string, string>): CrdExternalEntity {
  return {
    metadata: { namespace, name: ['ee', r.string(8)].join('-'), uid: r.uuid(), labels },
    spec: { endpoints: [{ ip: randomIP(r) }], ports: [{ protocol: 'TCP', port: 8080 }] },
  };
}

/** newANNPAppliedToExternalEntity with an ingress peer: applied to `applied`, Allow from `from`. */
function newAnnpForExternalEntity(
  r: Rand,
  namespace: string,
  applied: Record<string, string>,
  from: Record<string, string>,
): CrdNetworkPolicy {
  return {
    metadata: { namespace, name: ['annp', r.string(8)].join('-'), uid: r.uuid(), generation: 1 },
    spec: {
      // Antrea's generator leaves priority unset (0); the CRD schema would refuse it, the
      // computation does not care.
      priority: 0,
      appliedTo: [{ externalEntitySelector: { matchLabels: applied } }],
      ingress: [{ action: 'Allow', from: [{ externalEntitySelector: { matchLabels: from } }] }],
    },
  };
}

/** 1 Namespace, 10k ANNPs each applied to one ExternalEntity and allowing another, 10k EEs. */
export function annpPerExternalEntity(r: Rand): Workload {
  const ns = r.string(8);
  const w: Workload = {
    namespaces: [newNamespace(ns, { app: ns })],
    networkPolicies: [],
    pods: [],
    antreaNetworkPolicies: [],
    externalEntities: [],
  };
  for (let i = 0; i < 5000; i++) {
    const labels1 = { ee: `scale-${r.string(8)}` };
    const labels2 = { ee: `scale-${r.string(8)}` };
    w.antreaNetworkPolicies!.push(
      newAnnpForExternalEntity(r, ns, labels1, labels2),
      newAnnpForExternalEntity(r, ns, labels2, labels1),
    );
    w.externalEntities!.push(newExternalEntity(r, ns, labels1), newExternalEntity(r, ns, labels2));
  }
  return w;
}

export const WORKLOADS: Record<string, (r: Rand) => Workload> = {
  SmallNamespaces: smallNamespaces,
  LargeNamespaces: largeNamespaces,
  OneNamespace: oneNamespace,
  NetpolPerPod: netpolPerPod,
  ClusterScoped: clusterScoped,
  ANNPPerExternalEntity: annpPerExternalEntity,
};

/** Antrea's reference numbers (research notes §3.1), where published. */
export const ANTREA_REFERENCE: Record<string, string> = {
  SmallNamespaces: '5.84-6.42 s, 1522-1708 MB',
  OneNamespace: '10.66 s, 1157 MB',
  NetpolPerPod: '1.86-24.97 s, 170-198 MB (PR #2333)',
  ANNPPerExternalEntity: 'limit 10 s',
};
