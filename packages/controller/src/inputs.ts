// Structural types of the crd.antrea.io/v1beta1 objects the controller consumes. JSON field names
// are those of Antrea's pkg/apis/crd/v1beta1 Go types, so objects decoded from the API server (or
// typed with @antrea-ts/apis crd types) fit without conversion. Only the fields the policy
// computation reads are listed.
import type { AnyLabelSelector } from '@antrea-ts/apis';

export interface InputObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export type CrdRuleAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

export interface CrdNamespacedName {
  name?: string;
  namespace?: string;
}

export interface CrdIPBlock {
  cidr: string;
  except?: string[];
}

export interface CrdPeerNamespaces {
  match?: 'Self' | string;
  sameLabels?: string[];
}

export interface CrdNetworkPolicyPeer {
  ipBlock?: CrdIPBlock;
  podSelector?: AnyLabelSelector;
  namespaceSelector?: AnyLabelSelector;
  namespaces?: CrdPeerNamespaces;
  externalEntitySelector?: AnyLabelSelector;
  group?: string;
  fqdn?: string;
  serviceAccount?: CrdNamespacedName;
  nodeSelector?: AnyLabelSelector;
  scope?: string;
}

export interface CrdAppliedTo {
  podSelector?: AnyLabelSelector;
  namespaceSelector?: AnyLabelSelector;
  externalEntitySelector?: AnyLabelSelector;
  group?: string;
  serviceAccount?: CrdNamespacedName;
  service?: CrdNamespacedName;
  nodeSelector?: AnyLabelSelector;
}

export interface CrdNetworkPolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
  sourcePort?: number;
  sourceEndPort?: number;
}

export interface CrdNetworkPolicyProtocol {
  icmp?: { icmpType?: number; icmpCode?: number };
  igmp?: { igmpType?: number; groupAddress?: string };
}

export interface CrdL7Protocol {
  http?: { host?: string; method?: string; path?: string };
  tls?: { sni?: string };
}

export interface CrdPeerService {
  name?: string;
  namespace?: string;
  scope?: string;
}

export interface CrdRule {
  action?: CrdRuleAction | null;
  ports?: CrdNetworkPolicyPort[];
  protocols?: CrdNetworkPolicyProtocol[];
  l7Protocols?: CrdL7Protocol[];
  from?: CrdNetworkPolicyPeer[];
  to?: CrdNetworkPolicyPeer[];
  toServices?: CrdPeerService[];
  name?: string;
  enableLogging?: boolean;
  logLabel?: string;
  appliedTo?: CrdAppliedTo[];
}

export interface CrdNetworkPolicySpec {
  tier?: string;
  priority: number;
  appliedTo?: CrdAppliedTo[];
  ingress?: CrdRule[];
  egress?: CrdRule[];
}

export interface CrdNetworkPolicyCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdNetworkPolicyStatus {
  phase: 'Pending' | 'Realizing' | 'Realized' | 'Failed' | '';
  observedGeneration: number;
  currentNodesRealized: number;
  desiredNodesRealized: number;
  conditions: CrdNetworkPolicyCondition[];
}

/** crd.antrea.io/v1beta1 ClusterNetworkPolicy (ACNP). */
export interface CrdClusterNetworkPolicy {
  apiVersion?: string;
  kind?: string;
  metadata: InputObjectMeta;
  spec: CrdNetworkPolicySpec;
  // Not read by the engine; the status controller writes it.
  status?: unknown;
}

/** crd.antrea.io/v1beta1 NetworkPolicy (ANNP). */
export interface CrdNetworkPolicy {
  apiVersion?: string;
  kind?: string;
  metadata: InputObjectMeta;
  spec: CrdNetworkPolicySpec;
  // Not read by the engine; the status controller writes it.
  status?: unknown;
}

export interface CrdTier {
  apiVersion?: string;
  kind?: string;
  metadata: InputObjectMeta;
  spec: { priority: number; description?: string };
}

export interface CrdGroupSpec {
  podSelector?: AnyLabelSelector;
  namespaceSelector?: AnyLabelSelector;
  nodeSelector?: AnyLabelSelector;
  ipBlocks?: CrdIPBlock[];
  serviceReference?: CrdNamespacedName;
  externalEntitySelector?: AnyLabelSelector;
  childGroups?: string[];
}

/** crd.antrea.io/v1beta1 ClusterGroup (cluster-scoped) or Group (namespaced). */
export interface CrdGroup {
  apiVersion?: string;
  kind?: string;
  metadata: InputObjectMeta;
  spec: CrdGroupSpec;
}

/** crd.antrea.io/v1alpha2 ExternalEntity: a non-Pod workload (VM, bare-metal interface). */
export interface CrdExternalEntity {
  apiVersion?: string;
  kind?: string;
  metadata: InputObjectMeta & {
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  spec: {
    endpoints?: { ip?: string; name?: string }[];
    ports?: { protocol?: string; port?: number; name?: string }[];
    /** The agent (ExternalNode) that enforces policies on the entity; none: never applied to. */
    externalNode?: string;
  };
}
