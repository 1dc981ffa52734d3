import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import type { EgressInformers } from '../egress/egress-controller.js';
import type { InformerLike, PolicyInformers } from '../informers/informers.js';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdNetworkPolicy, CrdTier } from '../inputs.js';

/**
 * The cluster state the admission checks read (Antrea's listers and indexers): Tiers, Antrea-native
 * policies and groups, kept current from the controller's own informers.
 */
export class AdmissionState {
  readonly tiers = new Map<string, CrdTier>();
  readonly clusterNetworkPolicies = new Map<string, CrdClusterNetworkPolicy>();
  /** By namespace/name. */
  readonly antreaNetworkPolicies = new Map<string, CrdNetworkPolicy>();
  readonly clusterGroups = new Map<string, CrdGroup>();
  /** By namespace/name. */
  readonly groups = new Map<string, CrdGroup>();
  readonly egresses = new Map<string, Egress>();
  readonly externalIPPools = new Map<string, ExternalIPPool>();

  /** Follows the CRD informers (listeners are added beside the policy computation's). */
  follow(informers: PolicyInformers): void {
    track(informers.tiers, this.tiers);
    track(informers.clusterNetworkPolicies, this.clusterNetworkPolicies);
    track(informers.antreaNetworkPolicies, this.antreaNetworkPolicies);
    track(informers.clusterGroups, this.clusterGroups);
    track(informers.groups, this.groups);
  }

  /** Follows the Egress controller's informers (Egress and ExternalIPPool checks). */
  followEgress(informers: EgressInformers): void {
    track(informers.egresses, this.egresses);
    track(informers.externalIPPools, this.externalIPPools);
  }

  /** Policies of each kind whose spec.tier is exactly `tier` (Antrea's TierIndex). */
  tierReferences(tier: string): { clusterNetworkPolicies: number; antreaNetworkPolicies: number } {
    let clusterNetworkPolicies = 0;
    let antreaNetworkPolicies = 0;
    for (const p of this.clusterNetworkPolicies.values())
      if ((p.spec.tier ?? '') === tier) clusterNetworkPolicies++;
    for (const p of this.antreaNetworkPolicies.values())
      if ((p.spec.tier ?? '') === tier) antreaNetworkPolicies++;
    return { clusterNetworkPolicies, antreaNetworkPolicies };
  }
}

function key(o: { metadata: { name?: string; namespace?: string } }): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');
}

function track<T extends { metadata: { name?: string; namespace?: string } }>(
  informer: InformerLike<T> | undefined,
  map: Map<string, T>,
): void {
  if (!informer) return;
  const set = (o: T) => void map.set(key(o), o);
  informer.on('add', set);
  informer.on('update', set);
  informer.on('delete', (o) => void map.delete(key(o)));
}
