import { describe, expect, it } from 'vitest';
import { IPFIX_ERROR_CODES, IpfixError } from './errors.js';

describe('error catalogue', () => {
  it('every code is its own name; is() works without instanceof', () => {
    for (const [key, code] of Object.entries(IPFIX_ERROR_CODES)) expect(code).toBe(key);
    const cause = new Error('socket');
    const e = new IpfixError('IPFIX_SEND', 'x', { cause });
    expect(IpfixError.is(e)).toBe(true);
    expect(e.cause).toBe(cause);
    expect(IpfixError.is(new Error('x'))).toBe(false);
    expect(IpfixError.is(null)).toBe(false);
  });
});
