import {
  type AdminNetworkPolicy,
  type BaselineAdminNetworkPolicy,
  CRD_KINDS,
  crdInformer,
} from '@antrea-ts/apis';
import {
  CoreV1Api,
  type KubeConfig,
  makeInformer,
  NetworkingV1Api,
  type V1Namespace,
  type V1NetworkPolicy,
  type V1Node,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import { makeAdminPolicyInformers } from '../admin-policy/informers.js';
import type {
  CrdClusterNetworkPolicy,
  CrdExternalEntity,
  CrdGroup,
  CrdNetworkPolicy,
  CrdTier,
} from '../inputs.js';

/** The part of a client-node informer the adapter uses (a test double implements it too). */
export interface InformerLike<T> {
  on(verb: 'add' | 'update' | 'delete', cb: (obj: T) => void): void;
  on(verb: 'error', cb: (err?: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Every watch the policy computation needs; CRD informers are optional (K8s-only mode). */
export interface PolicyInformers {
  namespaces: InformerLike<V1Namespace>;
  pods: InformerLike<V1Pod>;
  nodes: InformerLike<V1Node>;
  services: InformerLike<V1Service>;
  networkPolicies: InformerLike<V1NetworkPolicy>;
  clusterNetworkPolicies?: InformerLike<CrdClusterNetworkPolicy>;
  antreaNetworkPolicies?: InformerLike<CrdNetworkPolicy>;
  tiers?: InformerLike<CrdTier>;
  clusterGroups?: InformerLike<CrdGroup>;
  groups?: InformerLike<CrdGroup>;
  externalEntities?: InformerLike<CrdExternalEntity>;
  /** policy.networking.k8s.io; only with the AdminNetworkPolicy feature gate. */
  adminNetworkPolicies?: InformerLike<AdminNetworkPolicy>;
  baselineAdminNetworkPolicies?: InformerLike<BaselineAdminNetworkPolicy>;
}

/** client-node ListWatch informers for every resource the controller computes policies from. */
export function makePolicyInformers(
  kc: KubeConfig,
  opts: { antreaNative?: boolean; adminNetworkPolicy?: boolean } = {},
): PolicyInformers {
  const core = kc.makeApiClient(CoreV1Api);
  const net = kc.makeApiClient(NetworkingV1Api);
  const informers: PolicyInformers = {
    namespaces: makeInformer<V1Namespace>(kc, '/api/v1/namespaces', () => core.listNamespace()),
    pods: makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces()),
    nodes: makeInformer<V1Node>(kc, '/api/v1/nodes', () => core.listNode()),
    services: makeInformer<V1Service>(kc, '/api/v1/services', () => core.listServiceForAllNamespaces()),
    networkPolicies: makeInformer<V1NetworkPolicy>(kc, '/apis/networking.k8s.io/v1/networkpolicies', () =>
      net.listNetworkPolicyForAllNamespaces(),
    ),
  };
  if (opts.antreaNative ?? true) {
    informers.clusterNetworkPolicies = crdInformer(kc, CRD_KINDS.ClusterNetworkPolicy);
    informers.antreaNetworkPolicies = crdInformer(kc, CRD_KINDS.NetworkPolicy);
    informers.tiers = crdInformer(kc, CRD_KINDS.Tier);
    informers.clusterGroups = crdInformer(kc, CRD_KINDS.ClusterGroup);
    informers.groups = crdInformer(kc, CRD_KINDS.Group);
    // ExternalEntity is still served as v1alpha2 only, as in Antrea (CRD_KINDS has that version).
    informers.externalEntities = crdInformer<CrdExternalEntity>(kc, CRD_KINDS.ExternalEntity);
  }
  if (opts.adminNetworkPolicy) Object.assign(informers, makeAdminPolicyInformers(kc));
  return informers;
}
