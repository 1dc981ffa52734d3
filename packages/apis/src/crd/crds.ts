import type { CrdKind } from './kinds.js';
import {
  antreaAgentInfoCrd,
  antreaControllerInfoCrd,
  antreaNetworkPolicyCrd,
  type CustomResourceDefinition,
  clusterGroupCrd,
  clusterNetworkPolicyCrd,
  egressCrd,
  externalEntityCrd,
  externalIPPoolCrd,
  groupCrd,
  packetCaptureCrd,
  supportBundleCollectionCrd,
  tierCrd,
  traceflowCrd,
  trafficControlCrd,
} from './schemas/index.js';

const factories: Record<CrdKind, () => CustomResourceDefinition> = {
  ClusterNetworkPolicy: clusterNetworkPolicyCrd,
  NetworkPolicy: antreaNetworkPolicyCrd,
  Tier: tierCrd,
  ClusterGroup: clusterGroupCrd,
  Group: groupCrd,
  ExternalEntity: externalEntityCrd,
  Traceflow: traceflowCrd,
  SupportBundleCollection: supportBundleCollectionCrd,
  AntreaControllerInfo: antreaControllerInfoCrd,
  AntreaAgentInfo: antreaAgentInfoCrd,
  Egress: egressCrd,
  ExternalIPPool: externalIPPoolCrd,
  PacketCapture: packetCaptureCrd,
  TrafficControl: trafficControlCrd,
};

/** A fresh CRD manifest for one kind (callers may mutate it). */
export function crdFor(kind: CrdKind): CustomResourceDefinition {
  return factories[kind]();
}

/** Every CRD Antrea-TS installs, in CRD_KINDS order; the single source of build/crds. */
export function antreaCrds(): CustomResourceDefinition[] {
  return (Object.keys(factories) as CrdKind[]).map(crdFor);
}
