import type { FlowMod } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from './cookie.js';
import { pipelineFlows } from './features/pipeline-flows.js';
import { FlowCache } from './flow-cache.js';
import type { FlowSwitch } from './of-connection.js';
import { DEFAULT_FEATURES, Pipeline } from './pipeline.js';

class FakeSwitch implements FlowSwitch {
  connected = true;
  bundles: FlowMod[][] = [];
  failNext = false;
  /** Fails the bundle with this index (0-based count of bundle calls). */
  failAt = -1;
  calls = 0;
  /** Refuses every bundle holding a mod for this table (a change the switch will never accept). */
  refuseTable = -1;
  async bundle(mods: readonly FlowMod[]): Promise<void> {
    if (this.failNext || this.calls++ === this.failAt || mods.some((m) => m.table === this.refuseTable)) {
      this.failNext = false;
      throw new Error('refused');
    }
    this.bundles.push([...mods]);
  }
  async dumpFlows() {
    return [];
  }
  onConnected() {
    return () => undefined;
  }
  async waitConnected() {}
}

const logger = pino({ level: 'silent' });
const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };

describe('FlowCache', () => {
  it('sends only the difference, one bundle per change', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const flows = pipelineFlows(ctx);
    await cache.replace('p', flows);
    expect(sw.bundles[0]).toHaveLength(flows.length);
    await cache.replace('p', flows);
    expect(sw.bundles).toHaveLength(1); // nothing changed: no bundle sent
    await cache.replace('p', flows.slice(1));
    expect(sw.bundles[1]!.map((m) => m.command)).toEqual(['DELETE_STRICT']);
    // flows[5] continues to the next table; make it drop instead.
    const changed = { ...flows[5]!, actions: [] };
    await cache.replace('p', [...flows.slice(1, 5), changed, ...flows.slice(6)]);
    expect(sw.bundles[2]!.map((m) => m.command)).toEqual(['ADD']);
    await cache.remove('p');
    expect(sw.bundles[3]).toHaveLength(flows.length - 1);
    expect(cache.size).toBe(0);
  });

  it('keeps its state when the switch refuses a bundle, and replays everything', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const flows = pipelineFlows(ctx);
    await cache.replace('p', flows.slice(0, 3));
    sw.failNext = true;
    await expect(cache.replace('q', flows.slice(3, 5))).rejects.toThrow('refused');
    expect(cache.has('q')).toBe(false);
    expect(await cache.replay()).toBe(3);
    expect(sw.bundles.at(-1)!.every((m) => m.command === 'ADD')).toBe(true);
  });
});

describe('FlowCache group commit', () => {
  it('merges concurrent changes into few bundles and isolates a refused one', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const flows = pipelineFlows(ctx);
    await Promise.all(flows.slice(0, 10).map((f, i) => cache.replace(`o${i}`, [f])));
    expect(sw.bundles.length).toBeLessThanOrEqual(2);
    expect(cache.size).toBe(10);
    // The first bundle goes alone; the next three calls queue behind it and merge; that merge fails.
    sw.failAt = sw.calls + 1;
    const results = await Promise.allSettled([
      cache.replace('z', [flows[13]!]),
      cache.replace('a', [flows[10]!]),
      cache.replace('b', [flows[11]!]),
      cache.replace('c', [flows[12]!]),
    ]);
    // The merged bundle failed once; each change was then retried alone and applied.
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(cache.size).toBe(14);
    // The failed merge was followed by one retry per caller.
    expect(sw.calls).toBe(sw.failAt + 4);
  });

  it('fails only the caller whose change the switch refuses', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const flows = pipelineFlows(ctx);
    const bad = flows[3]!;
    const good = flows.filter((f) => f.table !== bad.table).slice(0, 3);
    await cache.replace('first', [good[0]!]);
    sw.refuseTable = bad.table ?? 0;
    const pending = cache.replace('warmup', [good[0]!]);
    const results = await Promise.allSettled([
      pending,
      cache.replace('a', [good[1]!]),
      cache.replace('bad', [bad]),
      cache.replace('b', [good[2]!]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(cache.has('a') && cache.has('b')).toBe(true);
    expect(cache.has('bad')).toBe(false);
  });
});
