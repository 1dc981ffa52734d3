import type { GroupMember, IPAddress } from './types.js';

function ipKey(ip: IPAddress): string {
  // Raw bytes joined by '.', unambiguous for both address families; a plain loop (join() on a
  // typed array is several times slower, and this runs for every member of a diffed group).
  let s = '';
  for (let i = 0; i < ip.length; i++) s += i === 0 ? `${ip[i]}` : `.${ip[i]}`;
  return s;
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

/**
 * Members in `curr` but not in `prev` (added, in `curr` order) and the reverse (removed, in `prev`
 * order), by groupMemberKey. Each list is a set: no two members of one list share a key.
 *
 * Producers keep one member object per object state (the controller's compute core shares one
 * per Pod across every group), so a 100k-member group that changed by one Pod is mostly the same
 * objects in the same order: those match by reference (a common prefix and suffix, then a Set of
 * what is left) and only the rest is keyed. Same result as keying everything, as a member
 * matched by reference has the same key on both sides and, lists being sets, matches nothing else.
 */
export function diffGroupMembers(
  prev: readonly GroupMember[],
  curr: readonly GroupMember[],
): GroupMemberDiff {
  if (prev === curr) return { added: [], removed: [] };
  const n = Math.min(prev.length, curr.length);
  let head = 0;
  while (head < n && prev[head] === curr[head]) head++;
  let tail = 0;
  while (tail < n - head && prev[prev.length - 1 - tail] === curr[curr.length - 1 - tail]) tail++;
  const prevEnd = prev.length - tail;
  const currEnd = curr.length - tail;
  if (head === prevEnd && head === currEnd) return { added: [], removed: [] };
  let unmatched: readonly GroupMember[] = prev.slice(head, prevEnd);
  let candidates: readonly GroupMember[] = curr.slice(head, currEnd);
  if (unmatched.length > 0 && candidates.length > 0 && unmatched.length + candidates.length > 16) {
    // Reordered or many changes: match the rest by reference before keying.
    const rest = new Set(unmatched);
    const keyed: GroupMember[] = [];
    for (const m of candidates) if (!rest.delete(m)) keyed.push(m);
    unmatched = [...rest];
    candidates = keyed;
  }
  return diffByKey(unmatched, candidates);
}

function diffByKey(prev: readonly GroupMember[], curr: readonly GroupMember[]): GroupMemberDiff {
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
