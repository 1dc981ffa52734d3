import { parseIPGo } from '@antrea-ts/apis';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';
import {
  toAddressGroupPatch,
  toAppliedToGroupPatch,
  toWireAddressGroup,
  toWireAppliedToGroup,
  toWireNetworkPolicy,
} from './convert.js';
import { RamStore, type StoreEvent } from './ram-store.js';

const obj = (name: string, n = 0) => ({ name, span: new Set([`n${n}`]) });

describe('RamStore', () => {
  it('versions every change monotonically and emits one event per change', () => {
    const s = new RamStore<{ name: string; span: Set<string> }>('X');
    const events: StoreEvent<{ name: string }>[] = [];
    s.subscribe((e) => events.push(e));
    const a1 = obj('a');
    s.put(a1);
    s.put(a1); // same object: no change
    const a2 = obj('a', 1);
    s.put(a2);
    s.put(obj('b'));
    s.delete('a');
    s.delete('missing');
    expect(events.map((e) => [e.type, e.object.name, e.resourceVersion])).toEqual([
      ['ADDED', 'a', 1],
      ['MODIFIED', 'a', 2],
      ['ADDED', 'b', 3],
      ['DELETED', 'a', 4],
    ]);
    expect(events[1]!.prevObject).toBe(a1);
    expect(events[3]!.object).toBe(a2);
    expect(s.resourceVersion).toBe(4);
    expect(s.list().items.map((i) => [i.object.name, i.resourceVersion])).toEqual([['b', 3]]);
    expect(s.get('b')!.resourceVersion).toBe(3);
  });

  it('keeps delivering to other listeners when one throws, and stops after unsubscribe', () => {
    const s = new RamStore<{ name: string; span: Set<string> }>('X', pino({ level: 'silent' }));
    let seen = 0;
    s.subscribe(() => {
      throw new Error('bad watcher');
    });
    const off = s.subscribe(() => seen++);
    s.put(obj('a'));
    off();
    s.put(obj('b'));
    expect(seen).toBe(1);
  });
});

describe('wire conversion', () => {
  const m = (name: string, ip?: string) => ({
    pod: { name, namespace: 'x' },
    ...(ip ? { ips: [parseIPGo(ip)!] } : {}),
  });
  const atg = (byNode: [string, ReturnType<typeof m>[]][]): InternalAppliedToGroup => ({
    name: 'g',
    uid: 'g',
    membersByNode: new Map(byNode),
    span: new Set(byNode.map(([n]) => n)),
  });

  it('gives each Node only its own AppliedToGroup members, and per-Node patches', () => {
    const a = m('a');
    const b = m('b');
    const c = m('c');
    const prev = atg([
      ['n1', [a]],
      ['n2', [b]],
    ]);
    const curr = atg([
      ['n1', [a, c]],
      ['n2', [b]],
    ]);
    expect(toWireAppliedToGroup(curr, 5, 'n1')).toEqual({
      metadata: { name: 'g', uid: 'g', resourceVersion: '5' },
      groupMembers: [a, c],
    });
    expect(toWireAppliedToGroup(curr, 5).groupMembers).toHaveLength(3);
    expect(toAppliedToGroupPatch(prev, curr, 6, 'n1')).toEqual({
      metadata: { name: 'g', uid: 'g', resourceVersion: '6' },
      addedGroupMembers: [c],
    });
    expect(toAppliedToGroupPatch(prev, curr, 6, 'n2')).toBeUndefined();
  });

  it('patches AddressGroups by member identity including IPs, and skips span-only changes', () => {
    const before: InternalAddressGroup = {
      name: 'ag',
      uid: 'ag',
      members: [m('a', '10.0.0.1'), m('b', '10.0.0.2')],
      span: new Set(['n1']),
    };
    const after: InternalAddressGroup = { ...before, members: [m('a', '10.0.0.9'), before.members[1]!] };
    const patch = toAddressGroupPatch(before, after, 9)!;
    expect(patch.addedGroupMembers).toEqual([after.members[0]]);
    expect(patch.removedGroupMembers).toEqual([before.members[0]]);
    expect(toAddressGroupPatch(before, { ...before, span: new Set(['n2']) }, 10)).toBeUndefined();
    expect(toWireAddressGroup(before, 3).groupMembers).toHaveLength(2);
  });

  it('omits policy-level appliedToGroups for per-rule appliedTo and priorities for K8s policies', () => {
    const np: InternalNetworkPolicy = {
      name: 'u',
      uid: 'u',
      generation: 1,
      sourceRef: { type: 'K8sNetworkPolicy', namespace: 'x', name: 'n', uid: 'u' },
      rules: [],
      appliedToGroups: ['g'],
      appliedToPerRule: false,
      span: new Set(),
    };
    const wire = toWireNetworkPolicy(np, 2);
    expect(wire).toEqual({
      metadata: { name: 'u', uid: 'u', resourceVersion: '2', generation: 1 },
      rules: [],
      sourceRef: np.sourceRef,
      appliedToGroups: ['g'],
    });
    expect(toWireNetworkPolicy({ ...np, appliedToPerRule: true }, 2).appliedToGroups).toBeUndefined();
  });
});
