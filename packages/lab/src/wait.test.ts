import { describe, expect, it } from 'vitest';
import { LabError } from './errors.js';
import { waitUntil } from './wait.js';

describe('waitUntil', () => {
  it('stops at the first LabError the probe throws (a component exited)', async () => {
    let calls = 0;
    const exited = new LabError('LAB_START_TIMEOUT', 'etcd exited; see etcd.log');
    const wait = waitUntil(
      'etcd',
      async () => {
        calls += 1;
        throw exited;
      },
      { intervalMs: 1 },
    );
    await expect(wait).rejects.toBe(exited);
    expect(calls).toBe(1);
  });

  it('times out with LAB_START_TIMEOUT naming the component and the last error', async () => {
    const error = await waitUntil(
      'kube-apiserver /readyz (log: x.log)',
      async () => {
        throw new Error('ECONNREFUSED');
      },
      { timeoutMs: 10, intervalMs: 1 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LabError);
    expect((error as LabError).code).toBe('LAB_START_TIMEOUT');
    expect((error as Error).message).toBe(
      'timed out after 10 ms waiting for kube-apiserver /readyz (log: x.log) (last error: ECONNREFUSED)',
    );
  });
});
