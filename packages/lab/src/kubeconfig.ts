import { type KubeconfigOptions, kubeconfigYaml as kubeconfigFor } from '@antrea-ts/harness';

/** A kubeconfig for one user of the lab cluster (`antrea-ts-lab`): a client certificate or a bearer token. */
export function kubeconfigYaml(options: Omit<KubeconfigOptions, 'cluster'>): string {
  return kubeconfigFor({ ...options, cluster: 'antrea-ts-lab' });
}
