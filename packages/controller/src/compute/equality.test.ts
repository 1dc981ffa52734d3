import type { GroupMember } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { sameMembers } from './equality.js';

const m = (name: string): GroupMember => ({ pod: { namespace: 'ns', name } });

describe('sameMembers', () => {
  const list = Array.from({ length: 20 }, (_, i) => m(`p${i}`));
  it('compares member lists as sets of objects', () => {
    expect(sameMembers(list, list.slice())).toBe(true);
    expect(sameMembers(list, list.slice().reverse())).toBe(true);
    expect(sameMembers(list, [...list.slice(0, 10), ...list.slice(10).reverse()])).toBe(true);
    // Equal content in another object is a different member (the engine shares member objects).
    const copy = list.slice();
    copy[12] = m('p12');
    expect(sameMembers(list, copy)).toBe(false);
    const swapped = list.slice();
    swapped[3] = list[19]!;
    swapped[19] = m('x');
    expect(sameMembers(list, swapped)).toBe(false);
    expect(sameMembers(list, list.slice(1))).toBe(false);
  });
  it('handles short lists', () => {
    expect(sameMembers(list.slice(0, 3), list.slice(0, 3).reverse())).toBe(true);
    expect(sameMembers(list.slice(0, 3), list.slice(1, 4))).toBe(false);
  });
});
