import { waitFor } from './exec.js';
import type { KubeCluster } from './kube.js';

/** What these helpers need of a cluster: its kubectl. */
type Kubectl = Pick<KubeCluster, 'kubectl'>;

/** Creates or updates the objects with one `kubectl apply` of a List; returns kubectl's output. */
export function applyObjects(
  kube: Kubectl,
  objects: readonly object[],
  kubectlArgs: readonly string[] = [],
): Promise<string> {
  return kube.kubectl(['apply', ...kubectlArgs, '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  });
}

/**
 * Applies CRD manifests (files or folders) and returns once every CRD of the cluster is Established.
 * `applyArgs` go to `kubectl apply` (the lab applies server-side).
 */
export async function installCrds(
  kube: Kubectl,
  paths: readonly string[],
  applyArgs: readonly string[] = [],
): Promise<void> {
  await kube.kubectl(['apply', ...applyArgs, ...paths.flatMap((p) => ['-f', p])]);
  await kube.kubectl(['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
}

/**
 * An APIService routing group/version to a Service. The priorities only order groups in discovery;
 * the tests need one value, not Antrea's.
 */
export function apiServiceObject(options: {
  group: string;
  version: string;
  service: { name: string; namespace: string; port?: number };
  /** PEM of the CA that signed the serving certificate behind the Service. */
  caBundlePem: string;
}): Record<string, unknown> {
  const { group, version, service } = options;
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}` },
    spec: {
      group,
      version,
      groupPriorityMinimum: 100,
      versionPriority: 100,
      service: { name: service.name, namespace: service.namespace, port: service.port ?? 443 },
      caBundle: Buffer.from(options.caBundlePem).toString('base64'),
    },
  };
}

/**
 * `kubectl get --raw path`, retried until it succeeds: an aggregated path answers only once the
 * aggregator has found the APIService's backend available, which takes a few seconds after apply.
 */
export function getRawWhenServed(kube: Kubectl, path: string, timeoutMs = 60_000): Promise<string> {
  return waitFor(`kubectl get --raw ${path}`, () => kube.kubectl(['get', '--raw', path]), timeoutMs, 500);
}

/** A ServiceAccount bound to a ClusterRole of the given rules (both named `clusterRole`). */
export function serviceAccountWithClusterRole(options: {
  name: string;
  namespace: string;
  clusterRole: string;
  rules: readonly Record<string, unknown>[];
}): Record<string, unknown>[] {
  const { name, namespace, clusterRole } = options;
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: clusterRole },
      rules: options.rules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: clusterRole },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  ];
}
