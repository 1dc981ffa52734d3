import type {
  AddressGroup,
  AddressGroupPatch,
  AppliedToGroup,
  AppliedToGroupPatch,
  GroupMember,
  NetworkPolicy,
} from '@antrea-ts/apis';
import { diffGroupMembers } from '@antrea-ts/apis';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';

// Internal objects → controlplane.antrea.io/v1beta2 wire objects, per watcher where Antrea does it
// per watcher (pkg/controller/networkpolicy/store/*.go ToWatchEvent).

export function toWireNetworkPolicy(np: InternalNetworkPolicy, resourceVersion: number): NetworkPolicy {
  const out: NetworkPolicy = {
    metadata: {
      name: np.name,
      uid: np.uid,
      resourceVersion: String(resourceVersion),
      generation: np.generation,
    },
    rules: [...np.rules],
    sourceRef: np.sourceRef,
  };
  // With per-rule appliedTo the rules carry their groups and the policy-level list is omitted.
  if (!np.appliedToPerRule) out.appliedToGroups = [...np.appliedToGroups];
  if (np.priority !== undefined) out.priority = np.priority;
  if (np.tierPriority !== undefined) out.tierPriority = np.tierPriority;
  return out;
}

/** Members of one Node (what that Node's agent receives), or of all Nodes when node is undefined. */
export function appliedToGroupMembers(g: InternalAppliedToGroup, node?: string): GroupMember[] {
  if (node !== undefined) return [...(g.membersByNode.get(node) ?? [])];
  const out: GroupMember[] = [];
  for (const list of g.membersByNode.values()) out.push(...list);
  return out;
}

export function toWireAppliedToGroup(
  g: InternalAppliedToGroup,
  resourceVersion: number,
  node?: string,
): AppliedToGroup {
  const members = appliedToGroupMembers(g, node);
  const out: AppliedToGroup = {
    metadata: { name: g.name, uid: g.uid, resourceVersion: String(resourceVersion) },
  };
  if (members.length > 0) out.groupMembers = members;
  return out;
}

/** Per-Node patch; undefined when that Node's members did not change (no event for it). */
export function toAppliedToGroupPatch(
  prev: InternalAppliedToGroup,
  curr: InternalAppliedToGroup,
  resourceVersion: number,
  node: string,
): AppliedToGroupPatch | undefined {
  const before = prev.membersByNode.get(node) ?? [];
  const after = curr.membersByNode.get(node) ?? [];
  if (before === after) return undefined;
  const d = diffGroupMembers(before, after);
  if (d.added.length === 0 && d.removed.length === 0) return undefined;
  const out: AppliedToGroupPatch = {
    metadata: { name: curr.name, uid: curr.uid, resourceVersion: String(resourceVersion) },
  };
  if (d.added.length > 0) out.addedGroupMembers = d.added;
  if (d.removed.length > 0) out.removedGroupMembers = d.removed;
  return out;
}

export function toWireAddressGroup(g: InternalAddressGroup, resourceVersion: number): AddressGroup {
  const out: AddressGroup = {
    metadata: { name: g.name, uid: g.uid, resourceVersion: String(resourceVersion) },
  };
  if (g.members.length > 0) out.groupMembers = [...g.members];
  return out;
}

/** Patch shared by all watchers; undefined for span-only changes (Antrea sends no event then). */
export function toAddressGroupPatch(
  prev: InternalAddressGroup,
  curr: InternalAddressGroup,
  resourceVersion: number,
): AddressGroupPatch | undefined {
  if (prev.members === curr.members) return undefined;
  const d = diffGroupMembers(prev.members, curr.members);
  if (d.added.length === 0 && d.removed.length === 0) return undefined;
  const out: AddressGroupPatch = {
    metadata: { name: curr.name, uid: curr.uid, resourceVersion: String(resourceVersion) },
  };
  if (d.added.length > 0) out.addedGroupMembers = d.added;
  if (d.removed.length > 0) out.removedGroupMembers = d.removed;
  return out;
}
