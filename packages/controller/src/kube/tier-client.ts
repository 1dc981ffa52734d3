import { ApiException, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { CrdTier } from '../inputs.js';
import type { TierClient } from '../tier-initializer.js';

const BASE = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'tiers' } as const;

/** TierClient over the crd.antrea.io API. */
export class KubeTierClient implements TierClient {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  async get(name: string): Promise<CrdTier | undefined> {
    try {
      return (await this.api.getClusterCustomObject({ ...BASE, name })) as CrdTier;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw err;
    }
  }

  async create(tier: CrdTier): Promise<void> {
    await this.api.createClusterCustomObject({ ...BASE, body: tier });
  }

  async update(tier: CrdTier): Promise<void> {
    await this.api.replaceClusterCustomObject({ ...BASE, name: tier.metadata.name!, body: tier });
  }
}
