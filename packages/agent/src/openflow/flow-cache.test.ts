import type { FlowMod, GroupDesc } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from './cookie.js';
import { pipelineFlows } from './features/pipeline-flows.js';
import { servicePortFlows } from './features/service.js';
import { FlowCache } from './flow-cache.js';
import type { FlowSwitch, GroupChange } from './of-connection.js';
import { DEFAULT_FEATURES, Pipeline } from './pipeline.js';

class FakeSwitch implements FlowSwitch {
  connected = true;
  bundles: (FlowMod | GroupChange)[][] = [];
  /** What dumpGroups answers. */
  switchGroups: GroupDesc[] = [];
  failNext = false;
  /** Fails the bundle with this index (0-based count of bundle calls). */
  failAt = -1;
  calls = 0;
  /** Refuses every bundle holding a mod for this table (a change the switch will never accept). */
  refuseTable = -1;
  async bundle(mods: readonly (FlowMod | GroupChange)[]): Promise<void> {
    const refused = mods.some((m) => !('kind' in m) && m.table === this.refuseTable);
    if (this.failNext || this.calls++ === this.failAt || refused) {
      this.failNext = false;
      throw new Error('refused');
    }
    this.bundles.push([...mods]);
  }
  async dumpFlows() {
    return [];
  }
  async dumpGroups() {
    return this.switchGroups;
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

/** One bundle entry as text: group commands by id, flow commands by table. */
const entryText = (m: FlowMod | GroupChange): string =>
  'kind' in m ? `group ${m.command} ${m.groupId}` : `flow ${m.command} ${m.table}`;

describe('FlowCache groups', () => {
  const svc = (endpoints: { ip: string; port: number }[]) =>
    servicePortFlows(
      ctx,
      { clusterIp: '10.96.0.10', port: 80, protocol: 'TCP', groupId: 7, endpoints },
      'fiveTuple',
    );
  const a = { ip: '10.10.1.5', port: 8080 };
  const b = { ip: '10.10.1.6', port: 8080 };
  const dnat = ctx.pipeline.id('EndpointDNAT');
  const lb = ctx.pipeline.id('ServiceLB');

  it('installs the group before the flows, idempotently (add-or-modify)', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const { flows, groups } = svc([a, b]);
    await cache.replace('svc/x', flows, groups);
    expect(sw.bundles[0]!.map(entryText)).toEqual([
      'group ADD_OR_MOD 7',
      `flow ADD ${lb}`,
      `flow ADD ${dnat}`,
      `flow ADD ${dnat}`,
    ]);
    await cache.replace('svc/x', flows, groups);
    expect(sw.bundles).toHaveLength(1);
    expect(cache.ownedGroups('svc/x').map((g) => g.buckets.length)).toEqual([2]);
  });

  it('an endpoint change is one group modify and the flow diff in one bundle', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const before = svc([a, b]);
    await cache.replace('svc/x', before.flows, before.groups);
    const after = svc([a]);
    await cache.replace('svc/x', after.flows, after.groups);
    expect(sw.bundles).toHaveLength(2);
    expect(sw.bundles[1]!.map(entryText)).toEqual(['group ADD_OR_MOD 7', `flow DELETE_STRICT ${dnat}`]);
  });

  it('removes the group with its owner, after the flows that used it', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const { flows, groups } = svc([a]);
    await cache.replace('svc/x', flows, groups);
    await cache.remove('svc/x');
    expect(sw.bundles[1]!.map(entryText)).toEqual([
      `flow DELETE_STRICT ${lb}`,
      `flow DELETE_STRICT ${dnat}`,
      'group DELETE 7',
    ]);
    expect(cache.ownedGroups('svc/x')).toEqual([]);
  });

  it('keeps a group another owner takes over in the same batch', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const { flows, groups } = svc([a]);
    await cache.replace('svc/old', flows, groups);
    await cache.replaceMany([
      ['svc/old', undefined],
      ['svc/new', flows, svc([b]).groups],
    ]);
    expect(sw.bundles[1]!.filter((m) => 'kind' in m).map(entryText)).toEqual(['group ADD_OR_MOD 7']);
  });

  it('keeps a flow another owner takes over in the same batch (a Service port renamed)', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const before = svc([a]);
    await cache.replace('svc/http', before.flows, before.groups);
    // Same ClusterIP:port, new owner key and group id: the ServiceLB flow has the same identity.
    const after = servicePortFlows(
      ctx,
      {
        clusterIp: '10.96.0.10',
        port: 80,
        protocol: 'TCP',
        groupId: 8,
        endpoints: [a],
      },
      'fiveTuple',
    );
    await cache.replaceMany([
      ['svc/web', after.flows, after.groups],
      ['svc/http', undefined],
    ]);
    expect(sw.bundles[1]!.map(entryText)).toEqual([
      'group ADD_OR_MOD 8',
      `flow ADD ${lb}`,
      `flow ADD ${dnat}`,
      `flow DELETE_STRICT ${dnat}`,
      'group DELETE 7',
    ]);
    expect(cache.owned('svc/web').map((f) => f.table)).toEqual([lb, dnat]);
  });

  it('replays groups before flows, and prunes only groups no owner holds', async () => {
    const sw = new FakeSwitch();
    const cache = new FlowCache(sw, logger);
    const { flows, groups } = svc([a, b]);
    await cache.replace('p', pipelineFlows(ctx).slice(0, 2));
    await cache.replace('svc/x', flows, groups);
    expect(await cache.replay()).toBe(5);
    const replayed = sw.bundles.at(-1)!.map(entryText);
    expect(replayed[0]).toBe('group ADD_OR_MOD 7');
    expect(replayed.slice(1).every((d) => d.startsWith('flow ADD'))).toBe(true);
    sw.switchGroups = [
      { groupId: 7, type: 'select', buckets: [] },
      { groupId: 9, type: 'select', buckets: [] },
    ];
    expect(await cache.pruneGroups()).toBe(1);
    expect(sw.bundles.at(-1)!.map(entryText)).toEqual(['group DELETE 9']);
  });
});
