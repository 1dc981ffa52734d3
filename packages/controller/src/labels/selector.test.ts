import { describe, expect, it } from 'vitest';
import { ControllerError } from '../errors.js';
import { generateNormalizedName, newGroupSelector } from './group-selector.js';
import { compileSelector, SelectorCache } from './selector.js';

describe('compileSelector', () => {
  it('prints selectors like apimachinery labels.Selector.String()', () => {
    expect(compileSelector({}).text).toBe('');
    expect(compileSelector({ matchLabels: { b: '2', a: '1' } }).text).toBe('a=1,b=2');
    expect(
      compileSelector({
        matchExpressions: [
          { key: 'z', operator: 'In', values: ['y', 'x'] },
          { key: 'a', operator: 'NotIn', values: ['v'] },
          { key: 'm', operator: 'Exists' },
          { key: 'n', operator: 'DoesNotExist' },
        ],
      }).text,
    ).toBe('a notin (v),m,!n,z in (x,y)');
  });

  it('keeps matchLabels before expressions of the same key (stable sort)', () => {
    const s = compileSelector({
      matchLabels: { k: 'v' },
      matchExpressions: [{ key: 'k', operator: 'Exists' }],
    });
    expect(s.text).toBe('k=v,k');
  });

  it('matches label sets with all operators', () => {
    const s = compileSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['fe', 'be'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'team', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(s.matches({ app: 'web', tier: 'fe', team: 'a' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'fe', team: 'a', env: 'prod' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'db', team: 'a' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'fe' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'fe', team: 'a', legacy: '' })).toBe(false);
    expect(compileSelector({}).matches({ any: 'thing' })).toBe(true);
    expect(compileSelector({ matchLabels: { a: '' } }).matches({})).toBe(false);
  });

  it('rejects invalid operators and value lists with a coded error', () => {
    const bad = [
      { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
    ];
    for (const sel of bad) {
      try {
        compileSelector(sel);
        expect.unreachable();
      } catch (err) {
        expect(ControllerError.is(err) && err.code).toBe('CONTROLLER_INVALID_SELECTOR');
      }
    }
  });
});

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

describe('SelectorCache', () => {
  it('shares one compiled selector per canonical text', () => {
    const cache = new SelectorCache();
    const a = cache.compile({ matchLabels: { b: '2', a: '1' } });
    const b = cache.compile({
      matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }],
      matchLabels: { b: '2' },
    });
    const c = cache.compile({ matchLabels: { a: '1', b: '2' } });
    expect(c).toBe(a);
    expect(b).not.toBe(a);
    expect(cache.compile({ matchLabels: { x: 'y' } })).toBe(cache.compile({ matchLabels: { x: 'y' } }));
    // Without a cache every call compiles anew.
    expect(compileSelector({ matchLabels: { x: 'y' } })).not.toBe(
      compileSelector({ matchLabels: { x: 'y' } }),
    );
  });
});
