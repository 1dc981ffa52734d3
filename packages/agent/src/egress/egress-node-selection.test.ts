import { describe, expect, it } from 'vitest';
import { chooseEgressNode } from './egress-node-selection.js';

describe('chooseEgressNode', () => {
  const nodes = ['node-a', 'node-b', 'node-c'];
  const keys = Array.from({ length: 300 }, (_, i) => `egress-${i}`);

  it('is the same whatever order the Nodes come in, and none without Nodes', () => {
    for (const k of keys.slice(0, 20)) {
      expect(chooseEgressNode(k, nodes)).toBe(chooseEgressNode(k, [...nodes].reverse()));
    }
    expect(chooseEgressNode('x', [])).toBeUndefined();
  });

  it('spreads Egresses over every Node', () => {
    const counts = new Map<string, number>();
    for (const k of keys) {
      const n = chooseEgressNode(k, nodes) ?? '';
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(nodes);
    for (const c of counts.values()) expect(c).toBeGreaterThan(50);
  });

  it('moves only the Egresses of a Node that leaves', () => {
    for (const k of keys) {
      const before = chooseEgressNode(k, nodes);
      const after = chooseEgressNode(k, ['node-a', 'node-c']);
      if (before !== 'node-b') expect(after).toBe(before);
      else expect(['node-a', 'node-c']).toContain(after);
    }
  });
});
