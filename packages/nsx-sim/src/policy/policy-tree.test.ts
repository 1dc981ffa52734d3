import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock, SequentialIds } from '../clock.js';
import { ensureSystemObjects } from '../seed/system-objects.js';
import { memoryPersistence } from '../state/persistence.js';
import { SimStore } from '../state/sim-store.js';
import { emptyState } from '../state/types.js';
import { ALL_KINDS, groupKind, ruleKind, securityPolicyKind } from './kinds.js';
import { PolicyTree } from './policy-tree.js';

const D = '/infra/domains/default';
const SP = `${D}/security-policies`;

function newTree(store = new SimStore(memoryPersistence, pino({ level: 'silent' }))): {
  store: SimStore;
  tree: PolicyTree;
} {
  const tree = new PolicyTree({ store, clock: new ManualClock(), ids: new SequentialIds() });
  for (const k of ALL_KINDS) tree.registerKind(k);
  ensureSystemObjects(tree);
  return { store, tree };
}

const ids = (objs: { id: string }[]) => objs.map((o) => o.id);

/** children() as it was computed before the index: a scan of every stored path. */
function scanChildren(store: SimStore, parentPath: string, collection: string): string[] {
  const prefix = `${parentPath}/${collection}/`;
  return Object.entries(store.state.policy)
    .filter(([p]) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
    .map(([, o]) => o.id);
}

describe('PolicyTree child index', () => {
  it('children() follows writes, rule-set replacement, subtree deletes and keeps insertion order', () => {
    const { store, tree } = newTree();
    for (const g of ['b', 'a', 'c']) tree.write(groupKind, D, g, {}, 'PATCH', 'admin');
    tree.write(
      securityPolicyKind,
      D,
      'p',
      { rules: [{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }] },
      'PATCH',
      'admin',
    );
    tree.write(groupKind, D, 'a', { description: 'again' }, 'PATCH', 'admin'); // update keeps its place
    expect(ids(tree.children(D, 'groups'))).toEqual(['b', 'a', 'c']);
    expect(ids(tree.children(`${SP}/p`, 'rules'))).toEqual(['r1', 'r2', 'r3']);

    tree.write(securityPolicyKind, D, 'p', { rules: [{ id: 'r3' }, { id: 'r4' }] }, 'PATCH', 'admin');
    expect(ids(tree.children(`${SP}/p`, 'rules'))).toEqual(['r3', 'r4']);
    expect(ids(tree.children(`${SP}/p`, 'rules'))).toEqual(scanChildren(store, `${SP}/p`, 'rules'));

    tree.write(ruleKind, `${SP}/p`, 'r5', {}, 'PATCH', 'admin');
    tree.delete(`${SP}/p`);
    expect(tree.children(`${SP}/p`, 'rules')).toEqual([]);
    expect(Object.keys(store.state.policy).filter((p) => p.startsWith(`${SP}/p`))).toEqual([]);
    // Re-created: starts empty, nothing left over from the deleted subtree.
    tree.write(securityPolicyKind, D, 'p', {}, 'PATCH', 'admin');
    expect(tree.children(`${SP}/p`, 'rules')).toEqual([]);
    tree.delete(`${D}/groups/b`);
    expect(ids(tree.children(D, 'groups'))).toEqual(['a', 'c']);
    expect(ids(tree.children(D, 'groups'))).toEqual(scanChildren(store, D, 'groups'));
  });

  it('rebuilds from the state record when the store swaps it (load, rollback, reset)', () => {
    const { store, tree } = newTree();
    tree.write(groupKind, D, 'kept', {}, 'PATCH', 'admin');
    expect(() =>
      store.transaction(() => {
        tree.write(groupKind, D, 'gone', {}, 'PATCH', 'admin');
        expect(ids(tree.children(D, 'groups'))).toEqual(['kept', 'gone']);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(ids(tree.children(D, 'groups'))).toEqual(['kept']);

    const loaded = structuredClone(store.state);
    loaded.policy[`${D}/groups/from-file`] = {
      ...loaded.policy[`${D}/groups/kept`]!,
      id: 'from-file',
      path: `${D}/groups/from-file`,
    };
    store.state = loaded;
    expect(ids(tree.children(D, 'groups'))).toEqual(['kept', 'from-file']);

    store.state = emptyState();
    expect(tree.children(D, 'groups')).toEqual([]);
    expect(tree.get(`${D}/groups/kept`)).toBeUndefined();
  });
});

describe('PolicyTree memo', () => {
  it('recomputes a value only when its object or subtree changed', () => {
    const { store, tree } = newTree();
    tree.write(securityPolicyKind, D, 'p', { rules: [{ id: 'r' }] }, 'PATCH', 'admin');
    tree.write(securityPolicyKind, D, 'q', {}, 'PATCH', 'admin');
    let computed = 0;
    const ruleCount = (path: string) =>
      tree.memo(tree.require(path), 'count', () => {
        computed += 1;
        return tree.children(path, 'rules').length;
      });
    expect(ruleCount(`${SP}/p`)).toBe(1);
    expect(ruleCount(`${SP}/p`)).toBe(1);
    expect(computed).toBe(1);

    tree.write(ruleKind, `${SP}/q`, 'other', {}, 'PATCH', 'admin'); // a sibling's subtree
    tree.write(groupKind, D, 'g', {}, 'PATCH', 'admin');
    expect(ruleCount(`${SP}/p`)).toBe(1);
    expect(computed).toBe(1);

    tree.write(ruleKind, `${SP}/p`, 'r2', {}, 'PATCH', 'admin'); // below p
    expect(ruleCount(`${SP}/p`)).toBe(2);
    expect(computed).toBe(2);
    tree.delete(`${SP}/p/rules/r2`);
    expect(ruleCount(`${SP}/p`)).toBe(1);
    expect(computed).toBe(3);

    // In-place changes count once reported.
    tree.require(`${SP}/p/rules/r`)['sequence_number'] = 7;
    tree.markChanged(`${SP}/p/rules/r`);
    ruleCount(`${SP}/p`);
    expect(computed).toBe(4);

    store.state = structuredClone(store.state); // e.g. a rolled back transaction
    ruleCount(`${SP}/p`);
    expect(computed).toBe(5);
  });

  it('memoAll lasts until any change; version moves on every change', () => {
    const { tree } = newTree();
    let computed = 0;
    const all = () => tree.memoAll('n', () => ++computed);
    const v0 = tree.version;
    expect(all()).toBe(1);
    expect(all()).toBe(1);
    expect(tree.version).toBe(v0);
    tree.write(groupKind, D, 'g', {}, 'PATCH', 'admin');
    expect(tree.version).toBeGreaterThan(v0);
    expect(all()).toBe(2);
    const v1 = tree.version;
    tree.removeSubtree(`${D}/groups/g`);
    expect(tree.version).toBeGreaterThan(v1);
    expect(all()).toBe(3);
  });
});
