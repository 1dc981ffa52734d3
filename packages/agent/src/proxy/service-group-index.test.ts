import { describe, expect, it } from 'vitest';
import { ServiceGroupIndex } from './service-group-index.js';

describe('ServiceGroupIndex', () => {
  it('keeps sorted distinct ids per Service and tells listeners once per update, only of real changes', () => {
    const index = new ServiceGroupIndex();
    const told: string[][] = [];
    const unsubscribe = index.onChange((keys) => told.push([...keys]));
    index.update([
      ['ns/a', [7, 3, 7]],
      ['ns/b', []],
    ]);
    expect(index.groupIds('ns/a')).toEqual([3, 7]);
    expect(index.groupIds('ns/b')).toEqual([]);
    expect(told).toEqual([['ns/a']]);
    index.update([['ns/a', [3, 7]]]);
    expect(told).toHaveLength(1);
    index.update([
      ['ns/a', []],
      ['ns/c', [1]],
    ]);
    expect(told.at(-1)).toEqual(['ns/a', 'ns/c']);
    expect(index.groupIds('ns/a')).toEqual([]);
    unsubscribe();
    index.update([['ns/c', [2]]]);
    expect(told).toHaveLength(2);
    expect(index.groupIds('ns/c')).toEqual([2]);
  });
});
