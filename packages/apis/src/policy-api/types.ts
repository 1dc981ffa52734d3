// policy.networking.k8s.io/v1alpha1 (kubernetes-sigs/network-policy-api): AdminNetworkPolicy and
// BaselineAdminNetworkPolicy as JSON objects. Field names are the API's; each peer, subject and
// port sets exactly one of its members (the CRD enforces it).
import type { AnyLabelSelector } from '../labels/selector.js';

export const POLICY_API_GROUP = 'policy.networking.k8s.io';
export const POLICY_API_VERSION = 'v1alpha1';

/** Where each kind lives in the API; enough for REST paths and informers. */
export const POLICY_API_KINDS = Object.freeze({
  AdminNetworkPolicy: Object.freeze({
    kind: 'AdminNetworkPolicy',
    plural: 'adminnetworkpolicies',
    singular: 'adminnetworkpolicy',
    shortNames: Object.freeze(['anp']),
    group: POLICY_API_GROUP,
    version: POLICY_API_VERSION,
    namespaced: false,
  }),
  BaselineAdminNetworkPolicy: Object.freeze({
    kind: 'BaselineAdminNetworkPolicy',
    plural: 'baselineadminnetworkpolicies',
    singular: 'baselineadminnetworkpolicy',
    shortNames: Object.freeze(['banp']),
    group: POLICY_API_GROUP,
    version: POLICY_API_VERSION,
    namespaced: false,
  }),
});

/** The only name a BaselineAdminNetworkPolicy may have: there is one per cluster. */
export const BANP_NAME = 'default';

/** Highest ANP priority the API accepts (lower numbers take precedence). */
export const ANP_MAX_PRIORITY = 1000;

export type AdminNetworkPolicyRuleAction = 'Allow' | 'Deny' | 'Pass';
export type BaselineAdminNetworkPolicyRuleAction = 'Allow' | 'Deny';
export type PolicyApiProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface NamespacedPod {
  namespaceSelector: AnyLabelSelector;
  podSelector: AnyLabelSelector;
}

/** Whom a policy applies to: every Pod of some Namespaces, or some Pods of some Namespaces. */
export interface AdminNetworkPolicySubject {
  namespaces?: AnyLabelSelector;
  pods?: NamespacedPod;
}

export interface AdminNetworkPolicyIngressPeer {
  namespaces?: AnyLabelSelector;
  pods?: NamespacedPod;
}

export interface AdminNetworkPolicyEgressPeer {
  namespaces?: AnyLabelSelector;
  pods?: NamespacedPod;
  /** Host addresses of the selected Nodes. */
  nodes?: AnyLabelSelector;
  /** CIDRs. */
  networks?: string[];
}

export interface AdminNetworkPolicyPort {
  portNumber?: { protocol: PolicyApiProtocol; port: number };
  namedPort?: string;
  portRange?: { protocol?: PolicyApiProtocol; start: number; end: number };
}

export interface AdminNetworkPolicyIngressRule<A extends string = AdminNetworkPolicyRuleAction> {
  name?: string;
  action: A;
  from: AdminNetworkPolicyIngressPeer[];
  ports?: AdminNetworkPolicyPort[];
}

export interface AdminNetworkPolicyEgressRule<A extends string = AdminNetworkPolicyRuleAction> {
  name?: string;
  action: A;
  to: AdminNetworkPolicyEgressPeer[];
  ports?: AdminNetworkPolicyPort[];
}

export interface PolicyApiObjectMeta {
  name?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface PolicyApiCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface AdminNetworkPolicy {
  apiVersion?: string;
  kind?: string;
  metadata: PolicyApiObjectMeta;
  spec: {
    /** 0..1000; lower values take precedence. */
    priority: number;
    subject: AdminNetworkPolicySubject;
    ingress?: AdminNetworkPolicyIngressRule[];
    egress?: AdminNetworkPolicyEgressRule[];
  };
  status?: { conditions: PolicyApiCondition[] };
}

export interface BaselineAdminNetworkPolicy {
  apiVersion?: string;
  kind?: string;
  metadata: PolicyApiObjectMeta;
  spec: {
    subject: AdminNetworkPolicySubject;
    ingress?: AdminNetworkPolicyIngressRule<BaselineAdminNetworkPolicyRuleAction>[];
    egress?: AdminNetworkPolicyEgressRule<BaselineAdminNetworkPolicyRuleAction>[];
  };
  status?: { conditions: PolicyApiCondition[] };
}
