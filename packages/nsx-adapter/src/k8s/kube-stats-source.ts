import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { PolicyTrafficStats, StatsSource } from '../mp/statistics.js';
import { kubeError } from './kube-errors.js';

/**
 * StatsSource over the Antrea controller's aggregated stats API
 * (stats.antrea.io/v1alpha1 antreaclusternetworkpolicystats, NetworkPolicyStats feature gate). An
 * API that is not served (no controller, gate off) yields no statistics rather than an error.
 */
export class KubeStatsSource implements StatsSource {
  private readonly api: CustomObjectsApi;
  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }
  async clusterNetworkPolicyStats(): Promise<PolicyTrafficStats[]> {
    try {
      const list = (await this.api.listClusterCustomObject({
        group: 'stats.antrea.io',
        version: 'v1alpha1',
        plural: 'antreaclusternetworkpolicystats',
      })) as {
        items?: { metadata?: { name?: string }; ruleTrafficStats?: PolicyTrafficStats['ruleTrafficStats'] }[];
      };
      return (list.items ?? []).map((i) => ({
        name: i.metadata?.name ?? '',
        ruleTrafficStats: i.ruleTrafficStats ?? [],
      }));
    } catch (err) {
      const e = kubeError('list antreaclusternetworkpolicystats', err);
      if (e.code === 'K8S_NOT_FOUND') return [];
      throw e;
    }
  }
}
