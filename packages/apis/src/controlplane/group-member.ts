import type { GroupMember, IPAddress } from './types.js';

function ipKey(ip: IPAddress): string {
  // Raw bytes joined by '.', unambiguous for both address families and cheap to build.
  return ip.join('.');
}

/**
 * Identity of a member for set arithmetic (patch computation), like Antrea's GroupMemberSet key:
 * the referenced object plus its IPs. Named ports are not part of it: they are immutable on a Pod.
 */
export function groupMemberKey(m: GroupMember): string {
  let key: string;
  if (m.pod) key = `Pod:${m.pod.namespace}/${m.pod.name}`;
  else if (m.externalEntity) key = `ExternalEntity:${m.externalEntity.namespace}/${m.externalEntity.name}`;
  else if (m.node) key = `Node:${m.node.name}`;
  else if (m.service) key = `Service:${m.service.namespace}/${m.service.name}`;
  else key = 'Unknown:';
  if (m.ips) for (const ip of m.ips) key += `|${ipKey(ip)}`;
  return key;
}

export interface GroupMemberDiff {
  added: GroupMember[];
  removed: GroupMember[];
}

/** Members in `curr` but not in `prev` (added) and the reverse (removed), by groupMemberKey. */
export function diffGroupMembers(
  prev: readonly GroupMember[],
  curr: readonly GroupMember[],
): GroupMemberDiff {
  const prevByKey = new Map<string, GroupMember>();
  for (const m of prev) prevByKey.set(groupMemberKey(m), m);
  const added: GroupMember[] = [];
  for (const m of curr) {
    const k = groupMemberKey(m);
    if (prevByKey.has(k)) prevByKey.delete(k);
    else added.push(m);
  }
  return { added, removed: [...prevByKey.values()] };
}
