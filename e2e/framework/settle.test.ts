import { describe, expect, it } from 'vitest';
import { settle } from './settle.js';

/** A reader returning `values` in turn (the last one forever), counting its calls. */
function reader<T>(values: T[]) {
  let calls = 0;
  const read = async (): Promise<T> => {
    calls++;
    return values[Math.min(calls, values.length) - 1] as T;
  };
  return { read, calls: () => calls };
}

describe('settle', () => {
  it('rereads until the value deep-equals the wanted one', async () => {
    const r = reader([{ used: 0 }, { used: 0 }, { used: 1 }, { used: 2 }]);
    expect(await settle(r.read, { used: 1 }, { intervalMs: 1 })).toEqual({ used: 1 });
    expect(r.calls()).toBe(3);
  });

  it('accepts a predicate', async () => {
    const r = reader(['a', 'ab', 'abc']);
    expect(await settle(r.read, (v) => v.length > 1, { intervalMs: 1 })).toBe('ab');
  });

  it('returns the last value read when the wanted one never comes, so expect() fails on it', async () => {
    const r = reader(['IN_PROGRESS']);
    expect(await settle(r.read, 'SUCCESS', { timeoutMs: 30, intervalMs: 5 })).toBe('IN_PROGRESS');
    expect(r.calls()).toBeGreaterThan(1);
  });

  it('ends at a read that throws', async () => {
    let calls = 0;
    const failing = async (): Promise<number> => {
      calls++;
      throw new Error('read failed');
    };
    await expect(settle(failing, 7, { intervalMs: 1 })).rejects.toThrow('read failed');
    expect(calls).toBe(1);
  });
});
