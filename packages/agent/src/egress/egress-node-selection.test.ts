import { describe, expect, it } from 'vitest';
import { choosePoolNode } from './egress-node-selection.js';

describe('choosePoolNode', () => {
  const nodes = ['node-a', 'node-b', 'node-c'];
  const keys = Array.from({ length: 300 }, (_, i) => `egress-${i}`);

  it('is the same whatever order the Nodes come in, and none without Nodes', () => {
    for (const k of keys.slice(0, 20)) {
      expect(choosePoolNode(k, nodes)).toBe(choosePoolNode(k, [...nodes].reverse()));
    }
    expect(choosePoolNode('x', [])).toBeUndefined();
  });

  it('spreads Egresses over every Node', () => {
    const counts = new Map<string, number>();
    for (const k of keys) {
      const n = choosePoolNode(k, nodes) ?? '';
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(nodes);
    for (const c of counts.values()) expect(c).toBeGreaterThan(50);
  });

  it('moves only the Egresses of a Node that leaves', () => {
    for (const k of keys) {
      const before = choosePoolNode(k, nodes);
      const after = choosePoolNode(k, ['node-a', 'node-c']);
      if (before !== 'node-b') expect(after).toBe(before);
      else expect(['node-a', 'node-c']).toContain(after);
    }
  });
});
