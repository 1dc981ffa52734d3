// apiVersion for a kind named without one (delete/patch actions carry only `kind`). The runner
// first uses the apiVersion of the object it applied under that kind and name, so an Antrea
// NetworkPolicy and a K8s NetworkPolicy are told apart; this table is the fallback.
const DEFAULT_API_VERSIONS: Record<string, string> = {
  Namespace: 'v1',
  Pod: 'v1',
  Service: 'v1',
  Endpoints: 'v1',
  ConfigMap: 'v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  ClusterNetworkPolicy: 'crd.antrea.io/v1beta1',
  Tier: 'crd.antrea.io/v1beta1',
  ClusterGroup: 'crd.antrea.io/v1beta1',
  Group: 'crd.antrea.io/v1beta1',
  AdminNetworkPolicy: 'policy.networking.k8s.io/v1alpha1',
  BaselineAdminNetworkPolicy: 'policy.networking.k8s.io/v1alpha1',
};

export function defaultApiVersion(kind: string): string | undefined {
  return DEFAULT_API_VERSIONS[kind];
}

/** Kinds whose objects are cluster-scoped (cleanup deletes them explicitly, after namespaced ones). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterNetworkPolicy',
  'Tier',
  'ClusterGroup',
  'Node',
  'AdminNetworkPolicy',
  'BaselineAdminNetworkPolicy',
]);

export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}
