import { ApiException, CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { ClusterLookup } from '../api/ovstracing-route.js';

/** The object read, or undefined when kube-apiserver says 404. */
export async function unlessNotFound<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return undefined;
    throw err;
  }
}

/** A Pod's IPv4 address (status.podIPs, else status.podIP), if it has one. */
export function podIPv4(pod: V1Pod | undefined): string | undefined {
  const ips = pod?.status?.podIPs?.map((p) => p.ip) ?? (pod?.status?.podIP ? [pod.status.podIP] : []);
  return ips.find((ip) => !ip.includes(':'));
}

/** Pod IPs and Service ClusterIPs read from kube-apiserver when asked (trace-packet; rare, so no cache). */
export function kubeClusterLookup(kubeConfig: KubeConfig): ClusterLookup {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async podIp(namespace, name) {
      return podIPv4(await unlessNotFound(() => api.readNamespacedPod({ namespace, name })));
    },
    async serviceClusterIp(namespace, name) {
      const svc = await unlessNotFound(() => api.readNamespacedService({ namespace, name }));
      const ips = svc?.spec?.clusterIPs ?? (svc?.spec?.clusterIP ? [svc.spec.clusterIP] : []);
      return ips.find((ip) => ip !== 'None' && !ip.includes(':'));
    },
  };
}
