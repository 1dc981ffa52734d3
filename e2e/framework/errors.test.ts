import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E2eError, isE2eError } from './errors.js';

describe('E2eError', () => {
  it('carries its code and cause, and isE2eError branches on the code', () => {
    const cause = new Error('inner');
    const e = new E2eError('E2E_PATCH', 'bad patch', { cause });
    expect(e).toMatchObject({ name: 'E2eError', code: 'E2E_PATCH', message: 'bad patch', cause });
    expect(isE2eError(e)).toBe(true);
    expect(isE2eError(e, 'E2E_PATCH')).toBe(true);
    expect(isE2eError(e, 'E2E_PROVIDER')).toBe(false);
    expect(isE2eError(cause)).toBe(false);
  });

  it('every code thrown in the framework is declared in the catalogue', () => {
    const catalogue = readFileSync(join(import.meta.dirname, 'errors.ts'), 'utf8');
    const declared = new Set([...catalogue.matchAll(/\| '(E2E_[A-Z_]+)'/g)].map((m) => m[1]));
    const used = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
          for (const m of readFileSync(p, 'utf8').matchAll(/new E2eError\(\s*'(E2E_[A-Z_]+)'/g))
            used.add(m[1]!);
      }
    };
    walk(import.meta.dirname);
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((c) => !declared.has(c))).toEqual([]);
    expect([...declared].filter((c) => !used.has(c!))).toEqual([]);
  });
});
