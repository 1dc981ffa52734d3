import { describe, expect, it } from 'vitest';
import { isTag, MAX_TAG, MIN_TAG, TagAllocator } from './tag-allocator.js';

describe('TagAllocator', () => {
  it('hands out Antrea’s 14 DSCP tags 7, 11, ..., 59, one per Traceflow, then none', () => {
    const a = new TagAllocator();
    const tags = Array.from({ length: 14 }, (_, i) => a.allocate(`tf-${i}`));
    expect(tags).toEqual([7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47, 51, 55, 59]);
    expect(tags.every((t) => (t! & 0b11) === 0b11)).toBe(true);
    expect(a.allocate('tf-14')).toBeUndefined();
    expect(a.allocate('tf-3')).toBe(19);
    a.release('tf-3');
    expect(a.allocate('tf-14')).toBe(19);
    expect(a.size).toBe(14);
  });

  it('occupies tags found in Running Traceflows, refusing invalid and taken ones', () => {
    const a = new TagAllocator();
    expect(a.occupy('x', 11)).toBe(true);
    expect(a.occupy('x', 11)).toBe(true);
    expect(a.occupy('y', 11)).toBe(false);
    expect(a.occupy('y', 12)).toBe(false);
    expect(a.occupy('y', 63)).toBe(false);
    expect(a.allocate('z')).toBe(7);
    expect(a.allocate('w')).toBe(15);
  });

  it('knows the range', () => {
    expect([MIN_TAG, MAX_TAG]).toEqual([7, 59]);
    expect([3, 7, 8, 59, 63].map(isTag)).toEqual([false, true, false, true, false]);
  });
});
