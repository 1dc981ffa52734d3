// A ClusterProvider without packets: objects go into the controller's PolicyEngine (the same
// computation antrea-controller serves to agents), and a probe asks a connectivity oracle over the
// computed internal NetworkPolicies, AppliedToGroups and AddressGroups. It proves the runner end to
// end and checks case files against our controller before a lab exists. Pod IPs are allocated
// from 10.10.<node>.0/24, deliberately not the fixture's, so IP rewriting is exercised.

import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy } from '@antrea-ts/apis';
import {
  type CrdClusterNetworkPolicy,
  type CrdGroup,
  type CrdNetworkPolicy,
  type CrdTier,
  type InternalAddressGroup,
  type InternalAppliedToGroup,
  type InternalNetworkPolicy,
  PolicyEngine,
  RamStore,
} from '@antrea-ts/controller';
import type { V1NetworkPolicy, V1Pod, V1Service } from '@kubernetes/client-node';
import type { JsonPatchOp, KubeObject, Labels, Protocol } from '../case-types.js';
import { E2eError } from '../errors.js';
import { applyJsonPatch } from '../json-patch.js';
import type { ClusterProvider, ObjectRef, PodRef, PodSpec, ProbeOutcome } from '../provider.js';

export interface OracleEndpoint {
  namespace: string;
  name: string;
  ip: string;
  ports: { name?: string; port: number; protocol: string }[];
}

/** What the controller's computation holds; the oracle reads only these stores. */
export interface OracleWorld {
  networkPolicies: RamStore<InternalNetworkPolicy>;
  appliedToGroups: RamStore<InternalAppliedToGroup>;
  addressGroups: RamStore<InternalAddressGroup>;
}

export interface Oracle {
  verdict(
    src: OracleEndpoint,
    dst: OracleEndpoint,
    port: number,
    protocol: string,
  ): 'allow' | 'drop' | 'reject';
}

/** Builds an oracle over the stores (the controller's ConnectivityOracle: see controller-oracle.ts). */
export type OracleFactory = (world: OracleWorld) => Oracle;

export interface OracleProviderOptions {
  oracle: OracleFactory;
  /** Protocols probes may use; default TCP and UDP (kernel SCTP is missing on the lab machines). */
  protocols?: readonly Protocol[];
  /** Nodes Pods without a `node` are spread over, round robin. */
  nodes?: readonly string[];
}

interface PodState {
  spec: PodSpec;
  node: string;
  ip: string;
  uid: string;
}

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

function objectKey(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${groupOf(apiVersion)}/${kind}/${namespace ?? ''}/${name}`;
}

export class OracleProvider implements ClusterProvider {
  readonly name = 'oracle';
  private readonly world: OracleWorld;
  private readonly engine: PolicyEngine;
  private readonly makeOracle: OracleFactory;
  private readonly protocols: Set<Protocol>;
  private readonly nodes: readonly string[];
  private readonly namespaces = new Map<string, Labels>();
  private readonly pods = new Map<string, PodState>();
  private readonly objects = new Map<string, KubeObject>();
  private readonly nextHost = new Map<string, number>();
  /** Node -> its /24 (10.10.<index+1>.0/24), given in order of first use. */
  private readonly nodeIndex = new Map<string, number>();
  private nextNode = 0;
  private uid = 0;

  constructor(opts: OracleProviderOptions) {
    this.makeOracle = opts.oracle;
    this.protocols = new Set(opts.protocols ?? ['TCP', 'UDP']);
    this.nodes = opts.nodes ?? ['node-1', 'node-2'];
    this.world = {
      networkPolicies: new RamStore<InternalNetworkPolicy>('NetworkPolicy'),
      appliedToGroups: new RamStore<InternalAppliedToGroup>('AppliedToGroup'),
      addressGroups: new RamStore<InternalAddressGroup>('AddressGroup'),
    };
    this.engine = new PolicyEngine(this.world);
  }

  supports(protocol: Protocol): boolean {
    return this.protocols.has(protocol);
  }

  /** Objects currently held (for tests that check cleanup). */
  counts(): { namespaces: number; pods: number; objects: number } {
    return { namespaces: this.namespaces.size, pods: this.pods.size, objects: this.objects.size };
  }

  async createNamespace(name: string, labels: Labels): Promise<{ created: boolean }> {
    const created = !this.namespaces.has(name);
    this.namespaces.set(name, { ...labels });
    this.engine.upsertNamespace({ metadata: { name, labels: { ...labels } } });
    return { created };
  }

  async deleteNamespace(name: string): Promise<void> {
    for (const p of [...this.pods.values()]) if (p.spec.namespace === name) await this.deletePod(p.spec);
    for (const o of [...this.objects.values()])
      if (o.metadata.namespace === name)
        await this.delete({ apiVersion: o.apiVersion, kind: o.kind, namespace: name, name: o.metadata.name });
    this.namespaces.delete(name);
    this.engine.deleteNamespace(name);
  }

  private allocate(node: string): string {
    if (!this.nodeIndex.has(node)) this.nodeIndex.set(node, this.nodeIndex.size);
    const n = this.nodeIndex.get(node)!;
    const host = (this.nextHost.get(node) ?? 9) + 1;
    if (host > 254) throw new E2eError('E2E_PROVIDER', `node ${node} ran out of Pod IPs`);
    this.nextHost.set(node, host);
    return `10.10.${n + 1}.${host}`;
  }

  private toPod(p: PodState): V1Pod {
    return {
      metadata: { namespace: p.spec.namespace, name: p.spec.name, labels: { ...p.spec.labels }, uid: p.uid },
      spec: {
        nodeName: p.node,
        containers: [
          {
            name: 'server',
            ports: p.spec.ports.map((x) => ({
              ...(x.name ? { name: x.name } : {}),
              containerPort: x.port,
              protocol: x.protocol,
            })),
          },
        ],
      },
      status: { phase: 'Running', podIPs: [{ ip: p.ip }] },
    };
  }

  async createPod(spec: PodSpec): Promise<{ ips: string[] }> {
    if (!this.namespaces.has(spec.namespace))
      throw new E2eError('E2E_PROVIDER', `namespace ${spec.namespace} does not exist`);
    const key = `${spec.namespace}/${spec.name}`;
    if (this.pods.has(key)) throw new E2eError('E2E_PROVIDER', `Pod ${key} already exists`);
    const node = spec.node ?? this.nodes[this.nextNode++ % this.nodes.length]!;
    const state: PodState = {
      spec: structuredClone(spec),
      node,
      ip: this.allocate(node),
      uid: `uid-${++this.uid}`,
    };
    this.pods.set(key, state);
    this.engine.upsertPod(this.toPod(state));
    return { ips: [state.ip] };
  }

  async deletePod(ref: PodRef): Promise<void> {
    this.pods.delete(`${ref.namespace}/${ref.name}`);
    this.engine.deletePod(ref.namespace, ref.name);
  }

  async podIPs(ref: PodRef): Promise<string[]> {
    const p = this.pods.get(`${ref.namespace}/${ref.name}`);
    if (!p) throw new E2eError('E2E_PROVIDER', `no Pod ${ref.namespace}/${ref.name}`);
    return [p.ip];
  }

  async apply(object: KubeObject): Promise<void> {
    const md = object.metadata;
    const key = objectKey(object.apiVersion, object.kind, md.namespace, md.name);
    const prev = this.objects.get(key);
    const obj = structuredClone(object);
    obj.metadata.uid = (prev?.metadata.uid as string | undefined) ?? `uid-${++this.uid}`;
    obj.metadata.generation = ((prev?.metadata.generation as number | undefined) ?? 0) + 1;
    this.upsert(obj);
    this.objects.set(key, obj);
  }

  private upsert(o: KubeObject): void {
    const group = groupOf(o.apiVersion);
    const ns = o.metadata.namespace;
    if (o.kind === 'Namespace' && group === '') {
      void this.createNamespace(o.metadata.name, o.metadata.labels ?? {});
      return;
    }
    const antrea = group === 'crd.antrea.io';
    if (group === 'networking.k8s.io' && o.kind === 'NetworkPolicy') {
      this.engine.upsertK8sNetworkPolicy(o as unknown as V1NetworkPolicy);
    } else if (antrea && o.kind === 'ClusterNetworkPolicy') {
      this.engine.upsertClusterNetworkPolicy(o as unknown as CrdClusterNetworkPolicy);
    } else if (antrea && o.kind === 'NetworkPolicy') {
      if (!ns)
        throw new E2eError('E2E_PROVIDER', `Antrea NetworkPolicy ${o.metadata.name} needs a namespace`);
      this.engine.upsertAntreaNetworkPolicy(o as unknown as CrdNetworkPolicy);
    } else if (antrea && o.kind === 'Tier') {
      this.engine.upsertTier(o as unknown as CrdTier);
    } else if (antrea && o.kind === 'ClusterGroup') {
      this.engine.upsertClusterGroup(o as unknown as CrdGroup);
    } else if (antrea && o.kind === 'Group') {
      this.engine.upsertGroup(o as unknown as CrdGroup);
    } else if (group === 'policy.networking.k8s.io' && o.kind === 'AdminNetworkPolicy') {
      this.engine.upsertAdminNetworkPolicy(o as unknown as AdminNetworkPolicy);
    } else if (group === 'policy.networking.k8s.io' && o.kind === 'BaselineAdminNetworkPolicy') {
      this.engine.upsertBaselineAdminNetworkPolicy(o as unknown as BaselineAdminNetworkPolicy);
    } else if (group === '' && o.kind === 'Service') {
      this.engine.upsertService(o as unknown as V1Service);
    } else {
      throw new E2eError('E2E_UNSUPPORTED', `oracle provider cannot apply ${o.apiVersion} ${o.kind}`);
    }
  }

  async delete(ref: ObjectRef): Promise<void> {
    const key = objectKey(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    if (!this.objects.delete(key)) return;
    const group = groupOf(ref.apiVersion);
    const ns = ref.namespace ?? '';
    const antrea = group === 'crd.antrea.io';
    if (group === 'networking.k8s.io' && ref.kind === 'NetworkPolicy')
      this.engine.deleteK8sNetworkPolicy(ns, ref.name);
    else if (antrea && ref.kind === 'ClusterNetworkPolicy') this.engine.deleteClusterNetworkPolicy(ref.name);
    else if (antrea && ref.kind === 'NetworkPolicy') this.engine.deleteAntreaNetworkPolicy(ns, ref.name);
    else if (antrea && ref.kind === 'Tier') this.engine.deleteTier(ref.name);
    else if (antrea && ref.kind === 'ClusterGroup') this.engine.deleteClusterGroup(ref.name);
    else if (antrea && ref.kind === 'Group') this.engine.deleteGroup(ns, ref.name);
    else if (group === 'policy.networking.k8s.io' && ref.kind === 'AdminNetworkPolicy')
      this.engine.deleteAdminNetworkPolicy(ref.name);
    else if (group === 'policy.networking.k8s.io' && ref.kind === 'BaselineAdminNetworkPolicy')
      this.engine.deleteBaselineAdminNetworkPolicy(ref.name);
    else if (group === '' && ref.kind === 'Service') this.engine.deleteService(ns, ref.name);
  }

  async patch(ref: ObjectRef, jsonPatch: JsonPatchOp[]): Promise<void> {
    if (ref.kind === 'Namespace' || ref.kind === 'Pod') {
      const current =
        ref.kind === 'Namespace'
          ? { metadata: { name: ref.name, labels: this.namespaces.get(ref.name) } }
          : { metadata: { labels: this.pods.get(`${ref.namespace}/${ref.name}`)?.spec.labels } };
      if (!current.metadata.labels) throw new E2eError('E2E_PROVIDER', `no ${ref.kind} ${ref.name}`);
      const next = applyJsonPatch(current, jsonPatch);
      return this.setLabels(ref as { kind: 'Namespace' | 'Pod'; name: string }, next.metadata.labels ?? {});
    }
    const key = objectKey(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    const current = this.objects.get(key);
    if (!current)
      throw new E2eError(
        'E2E_PROVIDER',
        `no ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`,
      );
    await this.apply(applyJsonPatch(current, jsonPatch));
  }

  async setLabels(
    ref: { kind: 'Namespace' | 'Pod'; namespace?: string; name: string },
    labels: Labels,
  ): Promise<void> {
    if (ref.kind === 'Namespace') {
      if (!this.namespaces.has(ref.name)) throw new E2eError('E2E_PROVIDER', `no namespace ${ref.name}`);
      await this.createNamespace(ref.name, labels);
      return;
    }
    const p = this.pods.get(`${ref.namespace}/${ref.name}`);
    if (!p) throw new E2eError('E2E_PROVIDER', `no Pod ${ref.namespace}/${ref.name}`);
    p.spec.labels = { ...labels };
    this.engine.upsertPod(this.toPod(p));
  }

  /** The engine computes on flush(); nothing is in flight after it. */
  async waitForRealization(): Promise<void> {
    this.engine.flush();
  }

  private endpoint(p: PodState): OracleEndpoint {
    return { namespace: p.spec.namespace, name: p.spec.name, ip: p.ip, ports: p.spec.ports };
  }

  async probe(
    from: PodRef,
    to: PodRef,
    port: number,
    protocol: Protocol,
    _timeoutMs: number,
  ): Promise<ProbeOutcome> {
    const src = this.pods.get(`${from.namespace}/${from.name}`);
    const dst = this.pods.get(`${to.namespace}/${to.name}`);
    if (!src || !dst || !this.supports(protocol)) return 'error';
    if (this.engine.pending) this.engine.flush();
    const v = this.makeOracle(this.world).verdict(this.endpoint(src), this.endpoint(dst), port, protocol);
    // Like a Pod running serve.mjs (TCP and UDP on every declared port number): an allowed packet
    // to a port nobody serves is refused (TCP RST, ICMP port unreachable).
    const served = dst.spec.ports.some((p) => p.port === port);
    return v === 'allow' && !served ? 'reject' : v;
  }
}
