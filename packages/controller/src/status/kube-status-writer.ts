import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CrdNetworkPolicyStatus } from '../inputs.js';
import type { StatusWriter } from './status-controller.js';

const GROUP = 'crd.antrea.io';
const VERSION = 'v1beta1';

/**
 * Writes policy status through the status subresource with a merge patch (no read-modify-write,
 * so no conflicts with spec updates).
 */
export class KubeStatusWriter implements StatusWriter {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  async updateClusterNetworkPolicyStatus(name: string, status: CrdNetworkPolicyStatus): Promise<void> {
    await this.api.patchClusterCustomObjectStatus(
      { group: GROUP, version: VERSION, plural: 'clusternetworkpolicies', name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  async updateAntreaNetworkPolicyStatus(
    namespace: string,
    name: string,
    status: CrdNetworkPolicyStatus,
  ): Promise<void> {
    await this.api.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace, plural: 'networkpolicies', name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}
