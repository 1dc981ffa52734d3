import { describe, expect, it } from 'vitest';
import * as errors from './errors.js';

describe('error catalogue', () => {
  it('every code is its own name, and every error class uses a catalogued code', () => {
    for (const [key, code] of Object.entries(errors.OVSDB_ERROR_CODES)) expect(code).toBe(key);
    const samples = [
      new errors.OvsdbParseError('x', 0),
      new errors.OvsdbProtocolError('x'),
      new errors.OvsdbDisconnectedError('x'),
      new errors.OvsdbTimeoutError('x'),
      new errors.OvsdbClosedError(),
      new errors.OvsdbRpcError('transact', 'unknown database', 'db'),
      new errors.OvsdbTxnError(0, 'wait', 'timed out'),
      new errors.OvsdbNotFoundError('x'),
      new errors.OvsdbInterfaceError('p', 'x'),
    ];
    const used = new Set(samples.map((e) => e.code));
    expect([...used].sort()).toEqual(Object.values(errors.OVSDB_ERROR_CODES).sort());
    for (const e of samples) {
      expect(e).toBeInstanceOf(errors.OvsdbError);
      expect(errors.OvsdbError.is(e)).toBe(true);
      expect(e.name).not.toBe('Error');
    }
    expect(errors.OvsdbError.is(new Error('x'))).toBe(false);
    expect(errors.OvsdbError.is(null)).toBe(false);
  });

  it('keeps the cause', () => {
    const cause = new Error('socket');
    expect(new errors.OvsdbDisconnectedError('gone', { cause }).cause).toBe(cause);
  });

  it('names the commit when the failing element is past the operations', () => {
    expect(new errors.OvsdbTxnError(2, undefined, 'constraint violation').message).toMatch(/at commit/);
  });
});
