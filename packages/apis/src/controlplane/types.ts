// Internal controlplane API (controlplane.antrea.io/v1beta2) as plain interfaces. Field names follow
// the JSON tags of Antrea's pkg/apis/controlplane/v1beta2/types.go so that the JSON and protobuf
// codecs can serialize these objects without a translation layer.

/** Raw IP bytes (4 for IPv4, 16 for IPv6), like Go's `IPAddress []byte`; JSON shows it as base64. */
export type IPAddress = Uint8Array;

/** Kubernetes IntOrString: a port number or a named port. */
export type IntOrString = number | string;

export type Protocol = 'TCP' | 'UDP' | 'SCTP' | 'ICMP' | 'IGMP';
export type Direction = 'In' | 'Out';
export type RuleAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

export type NetworkPolicyType =
  | 'K8sNetworkPolicy'
  | 'AntreaClusterNetworkPolicy'
  | 'AntreaNetworkPolicy'
  | 'AdminNetworkPolicy'
  | 'BaselineAdminNetworkPolicy'
  | 'ClusterNetworkPolicy';

/** The subset of metav1.ObjectMeta that controlplane objects carry. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface PodReference {
  name: string;
  namespace: string;
}

export interface NodeReference {
  name: string;
}

export interface ServiceReference {
  name: string;
  namespace: string;
}

export interface ExternalEntityReference {
  name: string;
  namespace: string;
}

export interface NamedPort {
  port: number;
  name: string;
  protocol: Protocol;
}

/** Exactly one of pod, externalEntity, node or service is set. */
export interface GroupMember {
  pod?: PodReference;
  externalEntity?: ExternalEntityReference;
  ips?: IPAddress[];
  ports?: NamedPort[];
  node?: NodeReference;
  service?: ServiceReference;
}

export interface IPNet {
  ip: IPAddress;
  prefixLength: number;
}

export interface IPBlock {
  cidr: IPNet;
  except?: IPNet[];
}

export interface Service {
  protocol?: Protocol;
  port?: IntOrString;
  endPort?: number;
  icmpType?: number;
  icmpCode?: number;
  igmpType?: number;
  groupAddress?: string;
  srcPort?: number;
  srcEndPort?: number;
}

export interface HTTPProtocol {
  host?: string;
  method?: string;
  path?: string;
}

export interface TLSProtocol {
  sni?: string;
}

export interface L7Protocol {
  http?: HTTPProtocol;
  tls?: TLSProtocol;
}

export interface NetworkPolicyPeer {
  addressGroups?: string[];
  ipBlocks?: IPBlock[];
  fqdns?: string[];
  toServices?: ServiceReference[];
  labelIdentities?: number[];
}

export interface NetworkPolicyRule {
  direction: Direction;
  from?: NetworkPolicyPeer;
  to?: NetworkPolicyPeer;
  services?: Service[];
  /** Index of the rule in its direction; -1 for K8s NetworkPolicy rules. */
  priority: number;
  /** Absent means Allow (the deny-all rules of K8s isolation carry no action and no peer). */
  action?: RuleAction;
  enableLogging: boolean;
  /** Set when the policy's appliedTo is per rule. */
  appliedToGroups?: string[];
  name?: string;
  l7Protocols?: L7Protocol[];
  logLabel?: string;
}

export interface NetworkPolicyReference {
  type: NetworkPolicyType;
  namespace?: string;
  name: string;
  uid: string;
}

export interface NetworkPolicy {
  metadata: ObjectMeta;
  rules?: NetworkPolicyRule[];
  appliedToGroups?: string[];
  /** Policy priority; absent for K8s NetworkPolicies. */
  priority?: number;
  /** Tier priority; absent for K8s NetworkPolicies. */
  tierPriority?: number;
  sourceRef?: NetworkPolicyReference;
}

export interface AppliedToGroup {
  metadata: ObjectMeta;
  groupMembers?: GroupMember[];
}

export interface AppliedToGroupPatch {
  metadata: ObjectMeta;
  addedGroupMembers?: GroupMember[];
  removedGroupMembers?: GroupMember[];
}

export interface AddressGroup {
  metadata: ObjectMeta;
  groupMembers?: GroupMember[];
}

export interface AddressGroupPatch {
  metadata: ObjectMeta;
  addedGroupMembers?: GroupMember[];
  removedGroupMembers?: GroupMember[];
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
}

export interface NetworkPolicyList {
  metadata: ListMeta;
  items: NetworkPolicy[];
}

export interface AppliedToGroupList {
  metadata: ListMeta;
  items: AppliedToGroup[];
}

export interface AddressGroupList {
  metadata: ListMeta;
  items: AddressGroup[];
}

/** Realization result of one policy on one Node (agent → controller). */
export interface NetworkPolicyNodeStatus {
  nodeName: string;
  generation: number;
  realizationFailure: boolean;
  message?: string;
}

export interface NetworkPolicyStatus {
  metadata: ObjectMeta;
  nodes?: NetworkPolicyNodeStatus[];
}
