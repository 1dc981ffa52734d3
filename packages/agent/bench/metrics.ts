// What a Prometheus scrape of the agent costs: rendering /metrics (the registry's text) as the
// agent's flows, policies and tracked denied connections grow, in-process (the per-table flow
// gauge walks the flow cache, the policy gauges the rule cache, at every scrape); and reading the
// conntrack gauges from a real userspace ovs-vswitchd (three ovs-appctl runs), in a private netns
// (root needed; skipped otherwise).
//   node packages/agent/dist/bench/metrics.js [--json] [--flows 1000,10000,100000] [--scrapes 30]

import {
  AgentMetrics,
  DEFAULT_FEATURES,
  DeniedConnections,
  FlowCache,
  type FlowSwitch,
  OvsFlowMetrics,
  Pipeline,
  PolicyMetrics,
  readConntrack,
} from '@antrea-ts/agent';
import { BenchReport, startOvs } from '@antrea-ts/harness';
import type { Flow, FlowMod } from '@antrea-ts/openflow';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const flowSizes = (arg('--flows') ?? '1000,10000,100000').split(',').map(Number);
const scrapes = Number(arg('--scrapes') ?? 30);
const bench = new BenchReport('metrics', json);
const logger = pino({ level: 'silent' });
const PERCENTILES = { p50: 50, p99: 99 };

/** A switch that accepts every bundle at once: the bench measures the agent's side only. */
const acceptAll: FlowSwitch = {
  connected: true,
  bundle: async (_mods: readonly FlowMod[]) => undefined,
  dumpFlows: async () => [],
  onConnected: () => () => undefined,
  waitConnected: async () => undefined,
};

/** `n` distinct flows spread over the pipeline's tables, 100 per owner (a Pod's or a rule's worth). */
async function filledCache(cache: FlowCache, pipeline: Pipeline, n: number): Promise<void> {
  const owners: Array<[string, Flow[]]> = [];
  for (let i = 0; i < n; i++) {
    if (i % 100 === 0) owners.push([`owner/${i / 100}`, []]);
    owners.at(-1)![1].push({
      table: i % pipeline.tables.length,
      priority: 100,
      match: [{ field: 'reg1', value: BigInt(i) }],
      actions: [],
    });
  }
  await cache.replaceMany(owners);
}

async function scrapeCase(flows: number): Promise<void> {
  const metrics = new AgentMetrics();
  const pipeline = new Pipeline(DEFAULT_FEATURES);
  const flowMetrics: OvsFlowMetrics = new OvsFlowMetrics(metrics.registry, {
    pipeline,
    flowsPerTable: () => cache.countByTable(),
  });
  const cache: FlowCache = new FlowCache(acceptAll, logger, flowMetrics);
  await filledCache(cache, pipeline, flows);
  // A policy per 100 flows, 4 rules each; a denied connection per 10 flows (at most 10k).
  const policies = Array.from({ length: flows / 100 }, () => ({
    rules: [{ direction: 'In' }, { direction: 'In' }, { direction: 'Out' }, { direction: 'Out' }],
  }));
  new PolicyMetrics(metrics.registry, { policies: () => policies, fqdnNames: () => 0 });
  const denied = new DeniedConnections({ registry: metrics.registry, deniesByConjId: () => true });
  const frame = Buffer.alloc(54);
  frame.writeUInt16BE(0x0800, 12);
  frame[14] = 0x45;
  frame[23] = 6;
  for (let i = 0; i < Math.min(flows / 10, 10_000); i++) {
    frame.writeUInt32BE(0x0a000000 + i, 26);
    denied.observe({ packet: frame, cookie: 2n << 40n, metadata: [], userdata: Buffer.from([1]) });
  }
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < scrapes; i++) {
    const t0 = performance.now();
    bytes = (await metrics.registry.metrics()).length;
    samples.push(performance.now() - t0);
  }
  const c = `scrape flows=${flows}`;
  bench.recordPercentiles(c, samples, PERCENTILES, 'ms');
  bench.record(c, 'body', bytes / 1024, 'KiB');
}

async function conntrackCase(): Promise<void> {
  if (process.getuid?.() !== 0) {
    bench.note('conntrack read skipped: needs root (a private netns with userspace OVS)');
    return;
  }
  const ovs = await startOvs({ logger });
  try {
    // The netdev datapath exists once a bridge uses it.
    await ovs.vsctl(['add-br', 'br0', '--', 'set', 'bridge', 'br0', 'datapath_type=netdev']);
    const samples: number[] = [];
    for (let i = 0; i < scrapes; i++) {
      const t0 = performance.now();
      await readConntrack((args) => ovs.appctl(args));
      samples.push(performance.now() - t0);
    }
    bench.recordPercentiles('conntrack read (3 ovs-appctl)', samples, PERCENTILES, 'ms');
  } finally {
    await ovs.stop();
  }
}

for (const n of flowSizes) await scrapeCase(n);
await conntrackCase();
bench.finish();
