import { describe, expect, it } from 'vitest';
import { SyncLoop } from './sync-loop.js';

describe('SyncLoop', () => {
  it('folds schedules during a sync into one more sync, never overlapping', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const loop = new SyncLoop({
      sync: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        runs++;
        await new Promise((r) => setTimeout(r, 5));
        running--;
      },
      onError: () => {},
    });
    loop.start();
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 10; i++) loop.schedule();
    await loop.idle();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
    await loop.stop();
    loop.schedule();
    await loop.idle();
    expect(runs).toBe(2);
  });

  it('retries a failed sync', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const loop = new SyncLoop({
      sync: async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
      },
      onError: (e) => errors.push(e),
      retryMs: 1,
    });
    loop.start();
    while (calls < 2) await new Promise((r) => setTimeout(r, 2));
    await loop.stop();
    expect(errors).toHaveLength(1);
  });
});
