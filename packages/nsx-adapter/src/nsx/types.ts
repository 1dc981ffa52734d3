/**
 * The NSX JSON shapes the adapter reads (snake_case, as on the wire). Only the fields it uses are
 * typed; everything else passes through untouched.
 */

export interface NsxTag {
  scope?: string;
  tag?: string;
}

export interface NsxEnvelope {
  id: string;
  path: string;
  display_name?: string;
  unique_id?: string;
  resource_type?: string;
  _revision?: number;
  tags?: NsxTag[];
  marked_for_delete?: boolean;
}

export interface NsxCondition {
  resource_type: 'Condition';
  member_type: string;
  key: string;
  operator: string;
  value?: string;
  scope_operator?: string;
  exclude?: unknown;
}

export interface NsxConjunction {
  resource_type: 'ConjunctionOperator';
  conjunction_operator: 'AND' | 'OR';
}

export interface NsxNestedExpression {
  resource_type: 'NestedExpression';
  expressions: NsxExpression[];
}

export interface NsxIpAddressExpression {
  resource_type: 'IPAddressExpression';
  ip_addresses: string[];
}

/** Expressions the translator does not support are still typed so errors can name them. */
export interface NsxOtherExpression {
  resource_type:
    | 'PathExpression'
    | 'MACAddressExpression'
    | 'ExternalIDExpression'
    | 'IdentityGroupExpression'
    | 'GeoLocationExpression';
  [field: string]: unknown;
}

export type NsxExpression =
  | NsxCondition
  | NsxConjunction
  | NsxNestedExpression
  | NsxIpAddressExpression
  | NsxOtherExpression;

export interface NsxGroup extends NsxEnvelope {
  expression?: NsxExpression[];
  extended_expression?: unknown[];
  group_type?: string[];
}

export interface NsxServiceEntry {
  resource_type: string;
  id?: string;
  l4_protocol?: string;
  destination_ports?: string[];
  source_ports?: string[];
  protocol?: string;
  icmp_type?: number;
  icmp_code?: number;
  protocol_number?: number;
  nested_service_path?: string;
}

export interface NsxService extends NsxEnvelope {
  service_entries?: NsxServiceEntry[];
}

export type NsxAction = 'ALLOW' | 'DROP' | 'REJECT' | 'JUMP_TO_APPLICATION';
export type NsxDirection = 'IN' | 'OUT' | 'IN_OUT';

export interface NsxRule extends NsxEnvelope {
  rule_id?: number;
  sequence_number?: number;
  action?: NsxAction;
  direction?: NsxDirection;
  ip_protocol?: 'IPV4' | 'IPV6' | 'IPV4_IPV6';
  source_groups?: string[];
  destination_groups?: string[];
  sources_excluded?: boolean;
  destinations_excluded?: boolean;
  services?: string[];
  service_entries?: NsxServiceEntry[];
  scope?: string[];
  profiles?: string[];
  logged?: boolean;
  disabled?: boolean;
  tag?: string;
}

export interface NsxContainerClusterSpan extends NsxEnvelope {
  container_cluster_path: string;
  container_cluster_type?: string;
}

export interface NsxSecurityPolicy extends NsxEnvelope {
  category?: string;
  sequence_number?: number;
  scope?: string[];
  rules?: NsxRule[];
  stateful?: boolean;
  tcp_strict?: boolean;
  scheduler_path?: string;
  connectivity_preference?: string;
  container_cluster_span?: NsxContainerClusterSpan[];
}

/**
 * Everything the CCP adapter realizes for one cluster: the spanned security policies with their
 * rules, and the groups and services they reference (research notes §2.6).
 */
export interface PolicyFeed {
  container_cluster_path: string;
  node_id?: string;
  /** Monotonic version of the NSX policy state; absent when the source cannot tell. */
  policy_generation?: number;
  security_policies: NsxSecurityPolicy[];
  groups: NsxGroup[];
  services: NsxService[];
}
