import { describe, expect, it } from 'vitest';
import { LABEL_ERROR_CODES, LabelSelectorError } from './errors.js';
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
        expect(LabelSelectorError.is(err) && err.code).toBe('INVALID_LABEL_SELECTOR');
      }
    }
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

describe('LabelSelectorError', () => {
  it('carries the one code of the catalogue and is recognized without instanceof', () => {
    const err = new LabelSelectorError('x');
    expect(Object.values(LABEL_ERROR_CODES)).toEqual([err.code]);
    expect(LabelSelectorError.is(err)).toBe(true);
    expect(LabelSelectorError.is(new Error('x'))).toBe(false);
  });
});
