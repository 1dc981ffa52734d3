// JSON-shaped TS forms of controlplane messages that packages/apis/src/controlplane/types.ts does
// not declare (yet). Deliberately not re-exported from the package index, so that the owner of the
// controlplane types can add them there without a name clash; reach them through ControlplaneKinds.
import type {
  GroupMember,
  IPNet,
  ListMeta,
  NetworkPolicyReference,
  ObjectMeta,
  PodReference,
  RuleAction,
} from '../controlplane/types.js';

export interface TrafficStats {
  packets: number;
  bytes: number;
  sessions: number;
}

export interface RuleTrafficStats {
  name?: string;
  trafficStats: TrafficStats;
}

export interface NetworkPolicyStats {
  networkPolicy: NetworkPolicyReference;
  trafficStats: TrafficStats;
  ruleTrafficStats?: RuleTrafficStats[];
}

export interface MulticastGroupInfo {
  group?: string;
  pods?: PodReference[];
}

/** Stats an agent reports to the controller (create-only). */
export interface NodeStatsSummary {
  metadata: ObjectMeta;
  networkPolicies?: NetworkPolicyStats[];
  antreaClusterNetworkPolicies?: NetworkPolicyStats[];
  antreaNetworkPolicies?: NetworkPolicyStats[];
  multicast?: MulticastGroupInfo[];
}

export interface EgressGroup {
  metadata: ObjectMeta;
  groupMembers?: GroupMember[];
}

export interface EgressGroupPatch {
  metadata: ObjectMeta;
  addedGroupMembers?: GroupMember[];
  removedGroupMembers?: GroupMember[];
}

export interface EgressGroupList {
  metadata: ListMeta;
  items: EgressGroup[];
}

export interface Entity {
  pod?: PodReference;
}

export interface RuleRef {
  direction?: string;
  name?: string;
  action?: RuleAction;
}

export interface NetworkPolicyEvaluation {
  metadata: ObjectMeta;
  request?: { source: Entity; destination: Entity };
  response?: { networkPolicy: NetworkPolicyReference; ruleIndex?: number; rule: RuleRef };
}

export interface GroupReference {
  namespace?: string;
  name?: string;
  uid?: string;
}

export interface GroupAssociation {
  metadata: ObjectMeta;
  associatedGroups: GroupReference[];
}

export interface GroupMembers {
  metadata: ObjectMeta;
  effectiveMembers: GroupMember[];
  effectiveIPBlocks: IPNet[];
  totalMembers: number;
  totalPages: number;
  currentPage: number;
}

export interface PaginationGetOptions {
  page: number;
  limit: number;
}

/** Support bundle objects are passed through untyped beyond their metadata. */
export interface SupportBundleObject {
  metadata: ObjectMeta | ListMeta;
  [field: string]: unknown;
}

/** metav1.Status, the object of watch ERROR events and of protobuf error responses. */
export interface Status {
  metadata: ListMeta;
  status?: string;
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code?: number;
}
