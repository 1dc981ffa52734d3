import type { CrdCondition, CustomResource, LabelSelector } from './meta.js';
import type { PolicyIPBlock } from './network-policy.js';

export interface GroupServiceReference {
  name?: string;
  namespace?: string;
}

/**
 * Members of a ClusterGroup or Group. Exactly one kind of selection per Group: pod/namespace/
 * externalEntity selectors (combinable with namespaceSelector), nodeSelector, ipBlocks,
 * serviceReference or childGroups. Antrea's admission webhook enforces this, not the schema.
 */
export interface GroupSpec {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  /** ClusterGroup only; pruned from Group by its schema. */
  nodeSelector?: LabelSelector;
  ipBlocks?: PolicyIPBlock[];
  serviceReference?: GroupServiceReference;
  externalEntitySelector?: LabelSelector;
  /** Names of other groups of the same kind; one level of nesting only. */
  childGroups?: string[];
}

export const GROUP_MEMBERS_COMPUTED = 'GroupMembersComputed';
/** Condition reason for a group whose childGroups nest deeper than one level. */
export const CHILD_GROUPS_NESTING_EXCEEDED = 'ChildGroupsNestingExceeded';

export interface GroupStatus {
  conditions?: CrdCondition<typeof GROUP_MEMBERS_COMPUTED>[];
}

export interface ClusterGroup extends CustomResource<'ClusterGroup', 'crd.antrea.io/v1beta1'> {
  spec: GroupSpec;
  status?: GroupStatus;
}

export interface Group extends CustomResource<'Group', 'crd.antrea.io/v1beta1'> {
  spec: GroupSpec;
  status?: GroupStatus;
}
