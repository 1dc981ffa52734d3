import { describe, expect, it } from 'vitest';
import { ANTCTL_ERROR_CODES, AntctlError } from './errors.js';

describe('error catalogue', () => {
  it('gives every code an exit status: 2 for usage, 1 for everything that reached for a server', () => {
    for (const [code, exit] of Object.entries(ANTCTL_ERROR_CODES)) {
      expect(code).toMatch(/^ANTCTL_[A-Z_]+$/);
      expect(exit === 1 || exit === 2).toBe(true);
    }
    expect(new AntctlError('ANTCTL_USAGE', 'x').exitCode).toBe(2);
    expect(new AntctlError('ANTCTL_UNREACHABLE', 'x').exitCode).toBe(1);
  });
  it('recognises its errors across module copies by symbol, not instanceof', () => {
    const e = new AntctlError('ANTCTL_TIMEOUT', 'late', { cause: new Error('x'), status: 504 });
    expect(AntctlError.is(e)).toBe(true);
    expect(AntctlError.is(new Error('plain'))).toBe(false);
    expect(AntctlError.is({ code: 'ANTCTL_TIMEOUT' })).toBe(false);
    expect(e.status).toBe(504);
    expect((e.cause as Error).message).toBe('x');
  });
});
