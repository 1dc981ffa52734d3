import { describe, expect, it } from 'vitest';
import { HarnessError } from './errors.js';
import { poll, waitFor } from './exec.js';

/** A probe that fails `failures` times with `error`, then answers `value`. */
function flakyProbe<T>(failures: number, error: Error, value: T) {
  let calls = 0;
  return {
    probe: async () => {
      calls += 1;
      if (calls <= failures) throw error;
      return value;
    },
    calls: () => calls,
  };
}

describe('poll', () => {
  it('retries through errors until the probe answers', async () => {
    const p = flakyProbe(3, new Error('connection refused'), 'ready');
    await expect(poll('x', p.probe, { intervalMs: 1 })).resolves.toBe('ready');
    expect(p.calls()).toBe(4);
  });

  it('ends at once on an error the caller calls fatal', async () => {
    const fatal = new Error('component exited');
    const p = flakyProbe(5, fatal, 'never');
    const wait = poll('x', p.probe, { intervalMs: 1, isFatal: (e) => e === fatal });
    await expect(wait).rejects.toBe(fatal);
    expect(p.calls()).toBe(1);
  });

  it('times out with a HarnessError that names what it waited for and keeps the last error', async () => {
    const last = new Error('connection refused');
    const error = await poll('etcd /health', flakyProbe(1_000_000, last, 1).probe, {
      timeoutMs: 20,
      intervalMs: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('HARNESS_START_TIMEOUT');
    expect((error as Error).message).toBe('timed out after 20 ms waiting for etcd /health');
    expect((error as Error).cause).toBe(last);
  });

  it('throws the error the caller builds on timeout', async () => {
    const wait = poll('x', async () => false, {
      timeoutMs: 5,
      intervalMs: 1,
      timeoutError: (message) => new RangeError(`custom: ${message}`),
    });
    await expect(wait).rejects.toThrow(new RangeError('custom: timed out after 5 ms waiting for x'));
  });
});

describe('waitFor', () => {
  it('is poll with a positional timeout and interval', async () => {
    const error = await waitFor('y', async () => undefined, 5, 1).catch((e: unknown) => e);
    expect((error as HarnessError).code).toBe('HARNESS_START_TIMEOUT');
  });
});
