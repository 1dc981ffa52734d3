import type { CrdCondition, CustomResource, LabelSelector, NamespacedName } from './meta.js';

// Antrea-native policies, crd.antrea.io/v1beta1 (pkg/apis/crd/v1beta1 in Antrea). Go has one
// AppliedTo and one PolicyPeer type for both kinds; which fields each position accepts is
// decided by the CRD schemas (schemas/network-policy.ts), which prune the rest.

export const RULE_ACTIONS = ['Allow', 'Drop', 'Reject', 'Pass'] as const;
export type PolicyRuleAction = (typeof RULE_ACTIONS)[number];

export const PORT_PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
export type PortProtocol = (typeof PORT_PROTOCOLS)[number];

export const PEER_SCOPES = ['Cluster', 'ClusterSet'] as const;
export type PeerScope = (typeof PEER_SCOPES)[number];

export const HTTP_METHODS = [
  'GET',
  'POST',
  'PUT',
  'HEAD',
  'DELETE',
  'TRACE',
  'OPTIONS',
  'CONNECT',
  'PATCH',
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** IGMP message types that policies may match; only a query in ingress rules, only reports in egress. */
export const IGMP_QUERY = 0x11;
export const IGMP_REPORT_V1 = 0x12;
export const IGMP_REPORT_V2 = 0x16;
export const IGMP_REPORT_V3 = 0x22;

export type PolicyPhase = 'Pending' | 'Realizing' | 'Realized' | 'Failed';
export type PolicyConditionType = 'Realizable' | 'RealizationFailure';

/** Policy priority bounds enforced by the CRD schema (float64 in Antrea). */
export const POLICY_PRIORITY_MIN = 1;
export const POLICY_PRIORITY_MAX = 10000;

/** Workloads a policy or rule applies to; exactly one selector kind per entry. */
export interface AppliedTo {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  externalEntitySelector?: LabelSelector;
  /** Name of a ClusterGroup (ACNP) or Group in the policy's Namespace (ANNP). */
  group?: string;
  serviceAccount?: NamespacedName;
  /** A NodePort Service; only in policies with ingress rules only. */
  service?: NamespacedName;
  nodeSelector?: LabelSelector;
}

export interface PolicyIPBlock {
  cidr: string;
  except?: string[];
}

export interface PeerNamespaces {
  /** Same Namespace as the appliedTo workload. */
  match?: 'Self';
  /** Namespaces sharing the values of these label keys with the appliedTo Namespace. */
  sameLabels?: string[];
}

export interface PolicyPeer {
  ipBlock?: PolicyIPBlock;
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  namespaces?: PeerNamespaces;
  externalEntitySelector?: LabelSelector;
  group?: string;
  /** Egress only: exact name ("google.com") or wildcard ("*wayfair.com"). */
  fqdn?: string;
  serviceAccount?: NamespacedName;
  nodeSelector?: LabelSelector;
  /** Ingress only; defaults to Cluster. */
  scope?: PeerScope;
}

export interface PolicyPort {
  /** Defaults to TCP. */
  protocol?: PortProtocol;
  /** Number or named port; missing matches every port. */
  port?: number | string;
  endPort?: number;
  sourcePort?: number;
  sourceEndPort?: number;
}

export interface PolicyICMPProtocol {
  icmpType?: number;
  icmpCode?: number;
}

export interface PolicyIGMPProtocol {
  igmpType?: number;
  groupAddress?: string;
}

/** Exactly one of icmp or igmp. */
export interface PolicyProtocol {
  icmp?: PolicyICMPProtocol;
  igmp?: PolicyIGMPProtocol;
}

export interface PolicyHTTPProtocol {
  host?: string;
  method?: HttpMethod;
  path?: string;
}

export interface PolicyTLSProtocol {
  sni?: string;
}

/** Exactly one of http or tls. */
export interface PolicyL7Protocol {
  http?: PolicyHTTPProtocol;
  tls?: PolicyTLSProtocol;
}

export interface PeerService {
  name: string;
  /** Required in ClusterNetworkPolicy; defaults to the policy's Namespace in NetworkPolicy. */
  namespace?: string;
  scope?: PeerScope;
}

export interface PolicyRule {
  action: PolicyRuleAction;
  ports?: PolicyPort[];
  protocols?: PolicyProtocol[];
  l7Protocols?: PolicyL7Protocol[];
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  toServices?: PeerService[];
  name?: string;
  enableLogging?: boolean;
  logLabel?: string;
  appliedTo?: AppliedTo[];
}

export interface AntreaNetworkPolicySpec {
  /** Tier name; the controller puts policies without one in the "application" Tier. */
  tier?: string;
  priority: number;
  appliedTo?: AppliedTo[];
  ingress?: PolicyRule[];
  egress?: PolicyRule[];
}

/** ClusterNetworkPolicy and Antrea NetworkPolicy share the spec layout. */
export type ClusterNetworkPolicySpec = AntreaNetworkPolicySpec;

export interface PolicyStatus {
  phase: PolicyPhase;
  observedGeneration: number;
  currentNodesRealized: number;
  desiredNodesRealized: number;
  conditions?: CrdCondition<PolicyConditionType>[];
}

/** Antrea ClusterNetworkPolicy (ACNP), cluster-scoped. */
export interface ClusterNetworkPolicy
  extends CustomResource<'ClusterNetworkPolicy', 'crd.antrea.io/v1beta1'> {
  spec: ClusterNetworkPolicySpec;
  status?: PolicyStatus;
}

/** Antrea NetworkPolicy (ANNP), namespaced. */
export interface AntreaNetworkPolicy extends CustomResource<'NetworkPolicy', 'crd.antrea.io/v1beta1'> {
  spec: AntreaNetworkPolicySpec;
  status?: PolicyStatus;
}
