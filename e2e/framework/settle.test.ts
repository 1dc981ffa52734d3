import { describe, expect, it } from 'vitest';
import { settle } from './settle.js';

/** A reader returning `values` in turn (the last one forever), counting its calls. */
function reader<T>(values: T[], fail = 0) {
  let calls = 0;
  const read = async (): Promise<T> => {
    calls++;
    if (calls <= fail) throw new Error(`read ${calls} failed`);
    return values[Math.min(calls - fail, values.length) - 1] as T;
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

  it('treats a failed read as "not yet", but throws the error of the last read', async () => {
    expect(await settle(reader([7], 2).read, 7, { intervalMs: 1 })).toBe(7);
    await expect(settle(reader([7], 1000).read, 7, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      /failed/,
    );
  });
});
