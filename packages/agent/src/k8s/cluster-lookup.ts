import { ApiException, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ClusterLookup } from '../api/ovstracing-route.js';

const isNotFound = (err: unknown): boolean => err instanceof ApiException && err.code === 404;

/** Pod IPs and Service ClusterIPs read from kube-apiserver when asked (trace-packet; rare, so no cache). */
export function kubeClusterLookup(kubeConfig: KubeConfig): ClusterLookup {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const orUndefined = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return {
    async podIp(namespace, name) {
      const pod = await orUndefined(() => api.readNamespacedPod({ namespace, name }));
      const ips = pod?.status?.podIPs?.map((p) => p.ip) ?? (pod?.status?.podIP ? [pod.status.podIP] : []);
      return ips.find((ip) => !ip.includes(':'));
    },
    async serviceClusterIp(namespace, name) {
      const svc = await orUndefined(() => api.readNamespacedService({ namespace, name }));
      const ips = svc?.spec?.clusterIPs ?? (svc?.spec?.clusterIP ? [svc.spec.clusterIP] : []);
      return ips.find((ip) => ip !== 'None' && !ip.includes(':'));
    },
  };
}
