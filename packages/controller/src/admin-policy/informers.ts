import {
  type AdminNetworkPolicy,
  type BaselineAdminNetworkPolicy,
  crdInformer,
  POLICY_API_KINDS,
} from '@antrea-ts/apis';
import type { KubeConfig } from '@kubernetes/client-node';
import type { InformerLike } from '../informers/informers.js';

/** Watches of both policy.networking.k8s.io kinds (antrea-controller's AdminNetworkPolicy gate). */
export function makeAdminPolicyInformers(kc: KubeConfig): {
  adminNetworkPolicies: InformerLike<AdminNetworkPolicy>;
  baselineAdminNetworkPolicies: InformerLike<BaselineAdminNetworkPolicy>;
} {
  return {
    adminNetworkPolicies: crdInformer<AdminNetworkPolicy>(kc, POLICY_API_KINDS.AdminNetworkPolicy),
    baselineAdminNetworkPolicies: crdInformer<BaselineAdminNetworkPolicy>(
      kc,
      POLICY_API_KINDS.BaselineAdminNetworkPolicy,
    ),
  };
}
