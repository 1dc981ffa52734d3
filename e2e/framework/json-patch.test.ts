import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from './json-patch.js';

describe('applyJsonPatch', () => {
  const doc = { spec: { ingress: [{ a: 1 }, { a: 2 }], 'x/y': { '~k': 1 } }, metadata: { name: 'p' } };

  it('adds, removes, replaces, moves, copies and tests without touching the input', () => {
    const before = structuredClone(doc);
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/spec/ingress/0', value: { a: 0 } },
      { op: 'add', path: '/spec/ingress/-', value: { a: 3 } },
      { op: 'remove', path: '/spec/ingress/1' },
      { op: 'replace', path: '/metadata/name', value: 'q' },
      { op: 'copy', from: '/metadata/name', path: '/metadata/copy' },
      { op: 'move', from: '/spec/x~1y/~0k', path: '/spec/moved' },
      { op: 'test', path: '/spec/moved', value: 1 },
    ]);
    expect(out).toEqual({
      spec: { ingress: [{ a: 0 }, { a: 2 }, { a: 3 }], 'x/y': {}, moved: 1 },
      metadata: { name: 'q', copy: 'q' },
    });
    expect(doc).toEqual(before);
  });

  it('fails with E2E_PATCH on a missing path, a bad index or a failed test', () => {
    for (const op of [
      { op: 'remove', path: '/spec/nope' },
      { op: 'replace', path: '/a/b/c', value: 1 },
      { op: 'add', path: '/spec/ingress/9', value: 1 },
      { op: 'test', path: '/metadata/name', value: 'other' },
      { op: 'add', path: 'no-slash', value: 1 },
    ] as const)
      expect(() => applyJsonPatch(doc, [op])).toThrow(expect.objectContaining({ code: 'E2E_PATCH' }));
  });
});
