import { CONTROLPLANE_API_VERSION, diffGroupMembers, type GroupMember } from '@antrea-ts/apis';
import type { ApiObject } from '@antrea-ts/apiserver';
import {
  appliedToGroupMembers,
  toWireAddressGroup,
  toWireAppliedToGroup,
  toWireNetworkPolicy,
} from '../store/convert.js';
import type { SpannedObject } from '../store/ram-store.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';

/**
 * How one kind of stored object becomes what a watcher receives (Antrea's per-store
 * ToWatchEvent). `node` is the watcher's Node, undefined for a watcher of every Node (antctl).
 */
export interface WireConversion<T extends SpannedObject> {
  readonly resource: string;
  readonly kind: string;
  readonly listKind: string;
  /** True when full()/modified() depend on the Node (AppliedToGroup: per-Node members). */
  readonly perNode: boolean;
  /** The object as ADDED, get and list deliver it. */
  full(obj: T, rv: number, node: string | undefined): ApiObject;
  /** MODIFIED payload for a watcher that keeps the object; undefined means no event. */
  modified(prev: T, curr: T, rv: number, node: string | undefined): ApiObject | undefined;
}

function typed<O extends object>(kind: string, o: O): ApiObject {
  return { apiVersion: CONTROLPLANE_API_VERSION, kind, ...o };
}

/** DELETED carries metadata only, like Antrea. */
export function deletedObject(kind: string, obj: { name: string; uid: string }, rv: number): ApiObject {
  return typed(kind, { metadata: { name: obj.name, uid: obj.uid, resourceVersion: String(rv) } });
}

export const networkPolicyConversion: WireConversion<InternalNetworkPolicy> = {
  resource: 'networkpolicies',
  kind: 'NetworkPolicy',
  listKind: 'NetworkPolicyList',
  perNode: false,
  full: (np, rv) => typed('NetworkPolicy', toWireNetworkPolicy(np, rv)),
  // NetworkPolicy MODIFIED carries the whole object (no patch type exists for it).
  modified: (_prev, np, rv) => typed('NetworkPolicy', toWireNetworkPolicy(np, rv)),
};

function patch(
  kind: string,
  g: { name: string; uid: string },
  d: { added: GroupMember[]; removed: GroupMember[] },
  rv: number,
): ApiObject | undefined {
  if (d.added.length === 0 && d.removed.length === 0) return undefined;
  return typed(kind, {
    metadata: { name: g.name, uid: g.uid, resourceVersion: String(rv) },
    ...(d.added.length > 0 ? { addedGroupMembers: d.added } : {}),
    ...(d.removed.length > 0 ? { removedGroupMembers: d.removed } : {}),
  });
}

export const addressGroupConversion: WireConversion<InternalAddressGroup> = {
  resource: 'addressgroups',
  kind: 'AddressGroup',
  listKind: 'AddressGroupList',
  perNode: false,
  full: (g, rv) => typed('AddressGroup', toWireAddressGroup(g, rv)),
  // One patch per change, shared by every watcher; span-only changes send nothing (like Antrea).
  modified: (prev, curr, rv) =>
    patch('AddressGroupPatch', curr, diffGroupMembers(prev.members, curr.members), rv),
};

export const appliedToGroupConversion: WireConversion<InternalAppliedToGroup> = {
  resource: 'appliedtogroups',
  kind: 'AppliedToGroup',
  listKind: 'AppliedToGroupList',
  perNode: true,
  full: (g, rv, node) => typed('AppliedToGroup', toWireAppliedToGroup(g, rv, node)),
  modified(prev, curr, rv, node) {
    if (node !== undefined) {
      // Per Node, with the identity pre-pass: the compute core re-stores a 100k-member group
      // when one Pod changes, and 1000 per-Node key diffs would cost ~0.4 s.
      const before = prev.membersByNode.get(node) ?? [];
      const after = curr.membersByNode.get(node) ?? [];
      return patch('AppliedToGroupPatch', curr, diffGroupMembers(before, after), rv);
    }
    // A watcher of every Node gets the patch over all members.
    const d = diffGroupMembers(appliedToGroupMembers(prev), appliedToGroupMembers(curr));
    return patch('AppliedToGroupPatch', curr, d, rv);
  },
};
