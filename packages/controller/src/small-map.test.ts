import { describe, expect, it } from 'vitest';
import { compactMap, SmallMap } from './small-map.js';

describe('SmallMap', () => {
  it('answers like the Map it was built from', () => {
    const m = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    const s = new SmallMap(m);
    expect(s.size).toBe(2);
    expect(s.get('b')).toBe(2);
    expect(s.get('z')).toBeUndefined();
    expect(s.has('a')).toBe(true);
    expect([...s.keys()]).toEqual(['a', 'b']);
    expect([...s.values()]).toEqual([1, 2]);
    expect([...s]).toEqual([...m]);
    const seen: string[] = [];
    s.forEach((v, k) => {
      seen.push(`${k}${v}`);
    });
    expect(seen).toEqual(['a1', 'b2']);
    expect([...new SmallMap([]).keys()]).toEqual([]);
  });
  it('keeps big maps as they are', () => {
    const big = new Map(Array.from({ length: 9 }, (_, i) => [i, i] as const));
    expect(compactMap(big)).toBe(big);
    expect(compactMap(new Map([[1, 1]]))).toBeInstanceOf(SmallMap);
  });
});
