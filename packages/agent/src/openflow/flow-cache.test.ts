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
  async bundle(mods: readonly FlowMod[]): Promise<void> {
    if (this.failNext) {
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
