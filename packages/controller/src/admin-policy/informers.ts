import { type AdminNetworkPolicy, type BaselineAdminNetworkPolicy, POLICY_API_KINDS } from '@antrea-ts/apis';
import {
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
} from '@kubernetes/client-node';
import type { InformerLike } from '../informers/informers.js';

type Kind = (typeof POLICY_API_KINDS)[keyof typeof POLICY_API_KINDS];

function policyApiInformer<T extends KubernetesObject>(kc: KubeConfig, kind: Kind): InformerLike<T> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const { group, version, plural } = kind;
  const list = async () =>
    (await api.listClusterCustomObject({ group, version, plural })) as KubernetesListObject<T>;
  return makeInformer<T>(kc, `/apis/${group}/${version}/${plural}`, list);
}

/** Watches of both policy.networking.k8s.io kinds (antrea-controller's AdminNetworkPolicy gate). */
export function makeAdminPolicyInformers(kc: KubeConfig): {
  adminNetworkPolicies: InformerLike<AdminNetworkPolicy>;
  baselineAdminNetworkPolicies: InformerLike<BaselineAdminNetworkPolicy>;
} {
  return {
    adminNetworkPolicies: policyApiInformer(kc, POLICY_API_KINDS.AdminNetworkPolicy),
    baselineAdminNetworkPolicies: policyApiInformer(kc, POLICY_API_KINDS.BaselineAdminNetworkPolicy),
  };
}
