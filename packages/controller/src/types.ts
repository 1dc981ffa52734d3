import type {
  GroupMember,
  IPBlock,
  NetworkPolicyReference,
  NetworkPolicyRule,
  ServiceReference,
} from '@antrea-ts/apis';

// The controller's internal objects (Antrea pkg/controller/types): what the compute core writes to
// the RAM stores. Each carries its span, the set of Node names that must receive it. Objects are
// immutable once stored; a change stores a new object.

export type Span = ReadonlySet<string>;

export interface InternalNetworkPolicy {
  /** UID of the source policy. */
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
  readonly sourceRef: NetworkPolicyReference;
  readonly rules: readonly NetworkPolicyRule[];
  /** Sorted names of every AppliedToGroup the policy (or any of its rules) uses. */
  readonly appliedToGroups: readonly string[];
  readonly priority?: number;
  readonly tierPriority?: number;
  /** True when appliedTo is set per rule; the wire object then omits appliedToGroups. */
  readonly appliedToPerRule: boolean;
  readonly span: Span;
  /** Set when an AppliedToGroup could not be computed; the policy is then not realizable. */
  readonly syncError?: string;
}

export interface InternalAppliedToGroup {
  readonly name: string;
  readonly uid: string;
  /** Normalized selector (selector groups only). */
  readonly selector?: string;
  /** ClusterGroup name or "namespace/name" of a Group (groups derived from them only). */
  readonly sourceGroup?: string;
  /** NodePort Service the policy applies to (service groups only). */
  readonly service?: ServiceReference;
  /** Members without IPs, per Node: each agent gets only its own Node's members. */
  readonly membersByNode: ReadonlyMap<string, readonly GroupMember[]>;
  readonly span: Span;
  readonly syncError?: string;
}

export interface InternalAddressGroup {
  readonly name: string;
  readonly uid: string;
  readonly selector?: string;
  readonly sourceGroup?: string;
  /** Members with IPs and named ports. */
  readonly members: readonly GroupMember[];
  /** IPBlocks of a source ClusterGroup's ipBlock children (informational). */
  readonly ipBlocks?: readonly IPBlock[];
  readonly span: Span;
}
