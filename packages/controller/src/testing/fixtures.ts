// Builders for unit tests and the benchmark (not exported from the package index).
import type {
  V1Namespace,
  V1NetworkPolicy,
  V1NetworkPolicySpec,
  V1Node,
  V1Pod,
  V1Service,
} from '@kubernetes/client-node';
import { PolicyEngine } from '../compute/engine.js';
import type { CrdExternalEntity } from '../inputs.js';
import { RamStore } from '../store/ram-store.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';

export function newWorld() {
  const networkPolicies = new RamStore<InternalNetworkPolicy>('NetworkPolicy');
  const appliedToGroups = new RamStore<InternalAppliedToGroup>('AppliedToGroup');
  const addressGroups = new RamStore<InternalAddressGroup>('AddressGroup');
  const engine = new PolicyEngine({ networkPolicies, appliedToGroups, addressGroups });
  return { engine, networkPolicies, appliedToGroups, addressGroups };
}

export function namespace(
  name: string,
  labels: Record<string, string> = {},
  annotations?: Record<string, string>,
): V1Namespace {
  return {
    metadata: {
      name,
      labels: { 'kubernetes.io/metadata.name': name, ...labels },
      ...(annotations ? { annotations } : {}),
    },
  };
}

export interface PodOpts {
  node?: string;
  ip?: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  phase?: string;
  hostNetwork?: boolean;
  serviceAccount?: string;
}

export function pod(ns: string, name: string, labels: Record<string, string>, opts: PodOpts = {}): V1Pod {
  return {
    metadata: { namespace: ns, name, labels, uid: `uid-pod-${ns}-${name}` },
    spec: {
      nodeName: opts.node ?? 'node-1',
      containers: [{ name: 'c', ports: opts.ports }],
      ...(opts.hostNetwork ? { hostNetwork: true } : {}),
      ...(opts.serviceAccount ? { serviceAccountName: opts.serviceAccount } : {}),
    },
    status: {
      phase: opts.phase ?? 'Running',
      ...(opts.ip === '' ? {} : { podIPs: [{ ip: opts.ip ?? '10.0.0.1' }] }),
    },
  };
}

export function node(name: string, labels: Record<string, string> = {}, ip = '192.168.0.1'): V1Node {
  return { metadata: { name, labels }, status: { addresses: [{ type: 'InternalIP', address: ip }] } };
}

export function service(ns: string, name: string, selector?: Record<string, string>): V1Service {
  return { metadata: { namespace: ns, name }, spec: selector ? { selector } : {} };
}

/** A K8s NetworkPolicy as stored (plain JSON: `from`, not the client model's `_from`). */
export function networkPolicy(
  ns: string,
  name: string,
  spec: Record<string, unknown>,
  uid?: string,
): V1NetworkPolicy {
  return {
    metadata: { namespace: ns, name, uid: uid ?? `uid-np-${ns}-${name}`, generation: 1 },
    spec: spec as unknown as V1NetworkPolicySpec,
  };
}

export interface ExternalEntityOpts {
  /** spec.externalNode; omitted: none. */
  externalNode?: string;
  ips?: string[];
  ports?: { name?: string; port?: number; protocol?: string }[];
  /** Kind of the first owner reference (`ExternalNode` makes the Node key Namespace-qualified). */
  ownerKind?: string;
}

export function externalEntity(
  ns: string,
  name: string,
  labels: Record<string, string>,
  opts: ExternalEntityOpts = {},
): CrdExternalEntity {
  const ee: CrdExternalEntity = {
    metadata: { namespace: ns, name, labels, uid: `uid-ee-${ns}-${name}` },
    spec: { endpoints: (opts.ips ?? []).map((ip) => ({ ip })) },
  };
  if (opts.externalNode !== undefined) ee.spec.externalNode = opts.externalNode;
  if (opts.ports) ee.spec.ports = opts.ports;
  if (opts.ownerKind)
    ee.metadata.ownerReferences = [
      {
        apiVersion: 'crd.antrea.io/v1alpha1',
        kind: opts.ownerKind,
        name: opts.externalNode ?? '',
        uid: 'uid-owner',
      },
    ];
  return ee;
}
