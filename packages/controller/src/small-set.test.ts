import { describe, expect, it } from 'vitest';
import { SmallSet } from './small-set.js';

describe('SmallSet', () => {
  it('behaves like a Set below and above the array limit', () => {
    for (const n of [3, 8, 9, 40]) {
      const s = new SmallSet<number>();
      const ref = new Set<number>();
      for (let i = 0; i < n; i++) {
        s.add(i % 5 === 4 ? i - 1 : i);
        ref.add(i % 5 === 4 ? i - 1 : i);
      }
      expect([...s]).toEqual([...ref]);
      expect(s.size).toBe(ref.size);
      expect(s.has(2)).toBe(true);
      expect(s.delete(2)).toBe(true);
      expect(s.delete(2)).toBe(false);
      expect(s.has(2)).toBe(false);
      ref.delete(2);
      expect([...s.values()]).toEqual([...ref.values()]);
      expect([...s.entries()]).toEqual([...ref.entries()]);
      const seen: number[] = [];
      s.forEach((v) => {
        seen.push(v);
      });
      expect(seen).toEqual([...ref]);
      s.clear();
      expect(s.size).toBe(0);
      expect([...s]).toEqual([]);
    }
  });
});
