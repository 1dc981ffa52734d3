import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Points the current context's cluster at `server` (Antrea's kubeAPIServerOverride), keeping its CA,
 * the user's credentials (an in-cluster token file included) and every other cluster as loaded.
 */
export function overrideServer(kubeConfig: KubeConfig, server: string): void {
  const current = kubeConfig.getCurrentCluster();
  if (!current) throw new Error('kubeAPIServerOverride: the kubeconfig has no current cluster');
  kubeConfig.loadFromOptions({
    clusters: kubeConfig.clusters.map((c) => (c.name === current.name ? { ...c, server } : c)),
    users: kubeConfig.users,
    contexts: kubeConfig.contexts,
    currentContext: kubeConfig.currentContext,
  });
}
