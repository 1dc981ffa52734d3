import { describe, expect, it } from 'vitest';
import { generateNormalizedName, newGroupSelector } from './group-selector.js';

describe('normalized names', () => {
  it('sorts the parts and drops the Namespace when a namespaceSelector is set', () => {
    expect(
      newGroupSelector('x', { matchLabels: { pod: 'a' } }, undefined, undefined, undefined).normalizedName,
    ).toBe('namespace=x And podSelector=pod=a');
    expect(
      newGroupSelector('x', { matchLabels: { pod: 'a' } }, {}, undefined, undefined).normalizedName,
    ).toBe('namespaceSelector= And podSelector=pod=a');
    expect(
      newGroupSelector('x', undefined, { matchLabels: { ns: 'y' } }, undefined, undefined).normalizedName,
    ).toBe('namespaceSelector=ns=y');
    expect(
      newGroupSelector('', undefined, undefined, undefined, { matchLabels: { role: 'gw' } }).normalizedName,
    ).toBe('nodeSelector=role=gw');
    expect(generateNormalizedName('', undefined, undefined, undefined, undefined)).toBe('');
  });
});
