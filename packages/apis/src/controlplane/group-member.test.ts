import { describe, expect, it } from 'vitest';
import { diffGroupMembers, type GroupMemberDiff, groupMemberKey } from './group-member.js';
import type { GroupMember } from './types.js';

/**
 * The plain definition, written differently from the implementation's keyed diff: members of
 * one list whose key the other list lacks, in list order (lists hold distinct keys).
 */
function diffAllKeys(prev: readonly GroupMember[], curr: readonly GroupMember[]): GroupMemberDiff {
  const prevKeys = new Set(prev.map(groupMemberKey));
  const currKeys = new Set(curr.map(groupMemberKey));
  return {
    added: curr.filter((m) => !prevKeys.has(groupMemberKey(m))),
    removed: prev.filter((m) => !currKeys.has(groupMemberKey(m))),
  };
}

function pod(name: string, ip: number): GroupMember {
  return {
    pod: { namespace: 'ns', name },
    ips: [new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, ip])],
  };
}

describe('diffGroupMembers', () => {
  it('is empty for the same list, or the same objects', () => {
    const l = [pod('a', 1), pod('b', 2)];
    expect(diffGroupMembers(l, l)).toEqual({ added: [], removed: [] });
    expect(diffGroupMembers(l, l.slice())).toEqual({ added: [], removed: [] });
    expect(diffGroupMembers([], [])).toEqual({ added: [], removed: [] });
  });

  it('matches equal members that are different objects by key', () => {
    const d = diffGroupMembers([pod('a', 1), pod('b', 2)], [pod('b', 2), pod('a', 1)]);
    expect(d).toEqual({ added: [], removed: [] });
  });

  it('reports a changed IP in the middle of a large group as one removed and one added', () => {
    const prev = Array.from({ length: 1000 }, (_, i) => pod(`p${i}`, i % 250));
    const curr = prev.slice();
    const changed = pod('p500', 99);
    curr[500] = changed;
    const d = diffGroupMembers(prev, curr);
    expect(d.added).toEqual([changed]);
    expect(d.removed).toEqual([prev[500]]);
    expect(d.removed[0]).toBe(prev[500]);
    expect(d.added[0]).toBe(changed);
  });

  it('gives the result of keying every member, on random edits of shared and copied members', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      // A pool of distinct keys; lists take distinct keys (a member set), as objects shared with
      // the other list or as equal copies.
      const size = rand(40);
      const pool = Array.from({ length: size + 10 }, (_, i) => pod(`p${i}`, rand(3)));
      const prev: GroupMember[] = [];
      const used = new Set<string>();
      for (let i = 0; i < size; i++) {
        const m = pool[rand(pool.length)]!;
        const k = groupMemberKey(m);
        if (!used.has(k)) {
          used.add(k);
          prev.push(m);
        }
      }
      const curr: GroupMember[] = [];
      const usedCurr = new Set<string>();
      const push = (m: GroupMember) => {
        const k = groupMemberKey(m);
        if (usedCurr.has(k)) return;
        usedCurr.add(k);
        curr.push(m);
      };
      for (const m of prev) {
        const op = rand(10);
        if (op === 0) continue; // removed
        if (op === 1)
          push(pod(m.pod!.name, rand(3))); // IP may change
        else if (op === 2)
          push({ ...m }); // equal copy
        else push(m);
        if (rand(8) === 0) push(pool[rand(pool.length)]!); // inserted
      }
      if (rand(4) === 0) curr.reverse();
      const got = diffGroupMembers(prev, curr);
      const want = diffAllKeys(prev, curr);
      expect(got.added).toHaveLength(want.added.length);
      expect(got.removed).toHaveLength(want.removed.length);
      for (let i = 0; i < got.added.length; i++) expect(got.added[i]).toBe(want.added[i]);
      for (let i = 0; i < got.removed.length; i++) expect(got.removed[i]).toBe(want.removed[i]);
    }
  });
});
