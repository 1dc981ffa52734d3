// ClusterProvider for a real cluster whose Pods are made by a "Pod network" (the local lab's
// Lab.createPod: Pod object, netns, CNI ADD, servers) and whose objects go through kubectl. The
// lab's Lab class fits LabPodNetwork as it is; tests use a Linux bridge in its place.
import type { JsonPatchOp, KubeObject, Labels, Protocol } from '../case-types.js';
import { E2eError } from '../errors.js';
import type { ClusterProvider, ObjectRef, PodRef, PodSpec, ProbeOutcome, ProbeTarget } from '../provider.js';
import type { KubectlObjects } from './kubectl-objects.js';

/** What the provider needs from whoever makes Pods; the lab's `Lab` class has exactly this shape. */
export interface LabPodNetwork {
  createPod(spec: {
    namespace: string;
    name: string;
    node?: string;
    labels?: Record<string, string>;
    ports?: { name?: string; port: number; protocol: Protocol }[];
  }): Promise<{ ips: string[] }>;
  deletePod(namespace: string, name: string): Promise<void>;
  /** One result per target, in order (agent-tools/probe.mjs run in the source Pod's netns). */
  probe(
    from: PodRef,
    targets: readonly { ip: string; port: number; protocol: 'TCP' | 'UDP' }[],
    timeoutMs?: number,
  ): Promise<{ result: ProbeOutcome }[]>;
}

export interface LabProviderOptions {
  name?: string;
  /**
   * After Antrea-native policies report Realized, wait this long: K8s NetworkPolicies and
   * deletions carry no status, so this is the only wait they get.
   */
  settleMs?: number;
  /** How long an Antrea-native policy may take to report Realized before the step fails. */
  realizeTimeoutMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const ANTREA_POLICY_KINDS = new Set(['ClusterNetworkPolicy', 'NetworkPolicy']);

function isAntreaPolicy(o: { apiVersion: string; kind: string }): boolean {
  return o.apiVersion.startsWith('crd.antrea.io/') && ANTREA_POLICY_KINDS.has(o.kind);
}

function refKey(r: { kind: string; namespace?: string | undefined; name: string }): string {
  return `${r.kind}/${r.namespace ?? ''}/${r.name}`;
}

export class LabProvider implements ClusterProvider {
  readonly name: string;
  /** Pod key (ns/name) -> real IPs, for the Pods this provider made. */
  protected readonly ips = new Map<string, string[]>();
  /** Antrea-native policies that exist, whose status says when agents enforce them. */
  private readonly antreaPolicies = new Map<string, ObjectRef>();
  private readonly settleMs: number;
  private readonly realizeTimeoutMs: number;
  private readonly pollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly pods: LabPodNetwork,
    private readonly objects: KubectlObjects,
    opts: LabProviderOptions = {},
  ) {
    this.name = opts.name ?? 'lab';
    this.settleMs = opts.settleMs ?? 1000;
    this.realizeTimeoutMs = opts.realizeTimeoutMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 200;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  notes(): string[] {
    const forced = this.objects.forcedFinalizations;
    return forced.length
      ? [
          `finalized ${forced.length} Namespace deletion(s) that kube-controller-manager could not finish because API discovery was stale (${[...new Set(forced)].join(', ')}): see the Namespace conditions`,
        ]
      : [];
  }

  /** Kernel SCTP is missing on the lab machines, and the probe helper has none. */
  supports(protocol: Protocol): boolean {
    return protocol === 'TCP' || protocol === 'UDP';
  }

  createNamespace(name: string, labels: Labels): Promise<{ created: boolean }> {
    return this.objects.createNamespace(name, labels);
  }

  async deleteNamespace(name: string, options: { wait?: boolean } = {}): Promise<void> {
    // Pods first through the Pod network: their netns, servers and IPs are not API objects. All
    // at once: each is a CNI DEL on its own Node's agent.
    await Promise.all(
      [...this.ips.keys()]
        .filter((key) => key.startsWith(`${name}/`))
        .map((key) => this.deletePod({ namespace: name, name: key.slice(name.length + 1) })),
    );
    for (const [k, r] of [...this.antreaPolicies]) if (r.namespace === name) this.antreaPolicies.delete(k);
    await this.objects.deleteNamespace(name, options);
  }

  async createPod(spec: PodSpec): Promise<{ ips: string[] }> {
    const { ips } = await this.pods.createPod({
      namespace: spec.namespace,
      name: spec.name,
      labels: spec.labels,
      ports: spec.ports,
      ...(spec.node ? { node: spec.node } : {}),
    });
    if (ips.length === 0) throw new E2eError('E2E_PROVIDER', `Pod ${spec.namespace}/${spec.name} got no IP`);
    this.ips.set(`${spec.namespace}/${spec.name}`, ips);
    return { ips };
  }

  async deletePod(ref: PodRef): Promise<void> {
    await this.pods.deletePod(ref.namespace, ref.name);
    this.ips.delete(`${ref.namespace}/${ref.name}`);
  }

  async podIPs(ref: PodRef): Promise<string[]> {
    const ips = this.ips.get(`${ref.namespace}/${ref.name}`);
    if (!ips) throw new E2eError('E2E_PROVIDER', `no Pod ${ref.namespace}/${ref.name} made by this provider`);
    return ips;
  }

  async apply(object: KubeObject): Promise<void> {
    await this.objects.apply(object);
    if (isAntreaPolicy(object)) {
      const md = object.metadata;
      this.antreaPolicies.set(refKey({ kind: object.kind, namespace: md.namespace, name: md.name }), {
        apiVersion: object.apiVersion,
        kind: object.kind,
        ...(md.namespace ? { namespace: md.namespace } : {}),
        name: md.name,
      });
    }
  }

  async delete(ref: ObjectRef): Promise<void> {
    await this.objects.delete(ref);
    this.antreaPolicies.delete(refKey(ref));
  }

  patch(ref: ObjectRef, jsonPatch: JsonPatchOp[]): Promise<void> {
    return this.objects.patch(ref, jsonPatch);
  }

  setLabels(
    ref: { kind: 'Namespace' | 'Pod'; namespace?: string; name: string },
    labels: Labels,
  ): Promise<void> {
    return this.objects.setLabels(ref, labels);
  }

  /**
   * Every Antrea-native policy reports phase Realized for its current generation (the controller
   * sets it once every agent that needs the policy has installed it), then the settle time.
   */
  async waitForRealization(signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + this.realizeTimeoutMs;
    for (const ref of this.antreaPolicies.values()) {
      for (;;) {
        if (signal?.aborted) return;
        const o = await this.objects.get(ref);
        const status = o?.status as
          | {
              phase?: string;
              observedGeneration?: number;
              currentNodesRealized?: number;
              desiredNodesRealized?: number;
            }
          | undefined;
        const generation = o?.metadata.generation as number | undefined;
        if (
          status?.phase === 'Realized' &&
          (generation === undefined || status.observedGeneration === generation)
        )
          break;
        if (Date.now() > deadline)
          throw new E2eError(
            'E2E_PROVIDER',
            `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} not Realized after ${this.realizeTimeoutMs} ms (status ${JSON.stringify(status ?? null)})`,
          );
        await this.sleep(this.pollMs);
      }
    }
    await this.sleep(this.settleMs);
  }

  async probe(
    from: PodRef,
    to: PodRef,
    port: number,
    protocol: Protocol,
    timeoutMs: number,
  ): Promise<ProbeOutcome> {
    const [o] = await this.probeMany(from, [{ to, port, protocol }], timeoutMs);
    return o ?? 'error';
  }

  async probeMany(from: PodRef, targets: readonly ProbeTarget[], timeoutMs: number): Promise<ProbeOutcome[]> {
    const out: ProbeOutcome[] = targets.map(() => 'error');
    const real: { ip: string; port: number; protocol: 'TCP' | 'UDP' }[] = [];
    const index: number[] = [];
    for (const [i, t] of targets.entries()) {
      const ip = this.ips.get(`${t.to.namespace}/${t.to.name}`)?.[0];
      if (!ip || (t.protocol !== 'TCP' && t.protocol !== 'UDP')) continue;
      real.push({ ip, port: t.port, protocol: t.protocol });
      index.push(i);
    }
    if (!this.ips.has(`${from.namespace}/${from.name}`) || real.length === 0) return out;
    const results = await this.pods.probe(from, real, timeoutMs);
    for (const [j, r] of results.entries()) out[index[j]!] = r.result;
    return out;
  }
}
