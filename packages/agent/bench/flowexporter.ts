// bench:flowexporter — the flow exporter's cost per poll and per export round for 1k and 10k
// conntrack entries of local Pods: parsing the dump and updating the store (poll), then building
// and sending every record over TCP to a collector that discards them (export). CPU ms of this
// process (user + system) and wall ms per round, over rounds in which every connection has new
// counters and comes due; and the longest the event loop went without running a timer during a
// round's poll and export (what the agent's other work waits at worst). The dump is generated text
// in OVS's format: ovs-vswitchd's own cost of printing it (and the ovs-appctl process) is not
// included.
//
//   npm run bench:flowexporter -w @antrea-ts/agent [-- --json] [-- --entries 1000,10000] [-- --rounds 10]
import net from 'node:net';
import { FlowExporter, podCidrClassifier } from '@antrea-ts/agent';
import { BenchReport, percentile } from '@antrea-ts/harness';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string): string | undefined =>
  argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined;
const sizes = (arg('--entries') ?? '1000,10000').split(',').map(Number);
const rounds = Number(arg('--rounds') ?? 10);
const bench = new BenchReport('flowexporter', json);
const logger = pino({ level: 'silent' });

const PODS = 200;
const podIp = (i: number) => `10.10.${(i >> 8) & 255}.${(i & 255) + 2}`;
const pods: Record<string, string> = {};
for (let i = 0; i < PODS; i++) pods[podIp(i)] = `ns-${i % 10}/pod-${i}`;

/**
 * `n` connections from local Pods to Pods on other Nodes in OVS's `dpctl/dump-conntrack -m -s`
 * format (the kernel datapath's, with counters), counters advancing with `round`.
 */
function dumpText(n: number, round: number): string {
  const k = round + 1;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const src = podIp(i % PODS);
    const dst = `10.11.${Math.floor(i / 250) % 256}.${(i % 250) + 2}`;
    const sport = 10_000 + (i % 50_000);
    const dport = 80 + (i % 3);
    const tcp = i % 4 !== 0;
    lines.push(
      `${tcp ? 'tcp' : 'udp'},orig=(src=${src},dst=${dst},sport=${sport},dport=${dport},packets=${10 * k},bytes=${1500 * k}),` +
        `reply=(src=${dst},dst=${src},sport=${dport},dport=${sport},packets=${8 * k},bytes=${9000 * k}),` +
        `id=${i},zone=65520,status=SEEN_REPLY|CONFIRMED,timeout=86399,mark=3,labels=0x${(1 + (i % 50)).toString(16)}00000000` +
        (tcp ? ',protoinfo=(state_orig=ESTABLISHED,state_reply=ESTABLISHED)' : ''),
    );
  }
  return lines.join('\n');
}

/** Local Pods by IP; 50 egress rules by conjunction id. */
const metadata = {
  podByIp: (ip: string) => {
    const p = pods[ip];
    return p ? { namespace: p.split('/')[0]!, name: p.split('/')[1]! } : undefined;
  },
  servicePortName: () => undefined,
  ruleOfConjId: (id: number) =>
    id >= 1 && id <= 50
      ? { policyName: `p${id}`, policyNamespace: 'ns', policyType: 2, ruleName: `r${id}` }
      : undefined,
};

async function measure<T>(fn: () => Promise<T>): Promise<{ cpuMs: number; wallMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs, value };
}

/**
 * A 1 ms timer that runs until the returned function is called, which answers the longest gap
 * between its runs (the end counts as a run): how long the event loop was kept from timers.
 */
function loopProbe(): () => number {
  let last = performance.now();
  let longest = 0;
  const beat = () => {
    const t = performance.now();
    longest = Math.max(longest, t - last);
    last = t;
  };
  const timer = setInterval(beat, 1);
  return () => {
    clearInterval(timer);
    beat();
    return longest;
  };
}

async function run(n: number): Promise<void> {
  let received = 0;
  const sink = net.createServer((s) => s.on('data', (d) => (received += d.length)));
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const port = (sink.address() as net.AddressInfo).port;
  let now = Date.UTC(2026, 0, 1);
  let text = '';
  const exporter = new FlowExporter({
    nodeName: 'bench-node',
    collector: { host: '127.0.0.1', port, transport: 'tcp' },
    pollIntervalMs: 5000,
    activeTimeoutMs: 5000,
    idleTimeoutMs: 15_000,
    dumpConntrack: async () => text,
    zone: 65520,
    serviceMarkBit: 0x10,
    metadata,
    classify: podCidrClassifier(() => ['10.10.0.0/16', '10.11.0.0/16']),
    networkPolicyOnly: false,
    logger,
    now: () => now,
  });
  const polls: number[] = [];
  const pollWall: number[] = [];
  const exports: number[] = [];
  const exportWall: number[] = [];
  const blocked: number[] = [];
  let records = 0;
  try {
    // Round 0 adds every connection (metadata lookups); later rounds update them.
    for (let round = 0; round <= rounds; round++) {
      text = dumpText(n, round);
      const probe = loopProbe();
      const p = await measure(() => exporter.poll());
      now += 5000;
      const e = await measure(() => exporter.exportDue());
      const blockedMs = probe();
      if (e.value !== n) throw new Error(`round ${round}: exported ${e.value} of ${n}`);
      records += e.value;
      if (round === 0) {
        bench.record(`${n} entries, first poll`, 'poll CPU', p.cpuMs, 'ms');
        bench.record(`${n} entries, first poll`, 'export CPU', e.cpuMs, 'ms');
        continue;
      }
      polls.push(p.cpuMs);
      pollWall.push(p.wallMs);
      exports.push(e.cpuMs);
      exportWall.push(e.wallMs);
      blocked.push(blockedMs);
    }
    await new Promise((r) => setTimeout(r, 200));
    const c = `${n} entries`;
    bench.recordPercentiles(c, polls, { 'poll CPU p50': 50, 'poll CPU max': 100 }, 'ms');
    bench.recordPercentiles(c, pollWall, { 'poll wall p50': 50 }, 'ms');
    bench.recordPercentiles(c, exports, { 'export CPU p50': 50, 'export CPU max': 100 }, 'ms');
    bench.recordPercentiles(c, exportWall, { 'export wall p50': 50 }, 'ms');
    bench.recordPercentiles(c, blocked, { 'event loop block p50': 50, 'event loop block max': 100 }, 'ms');
    bench.record(
      c,
      'poll+export CPU per connection',
      ((percentile(polls, 50) + percentile(exports, 50)) * 1000) / n,
      'µs',
    );
    bench.record(c, 'IPFIX bytes per record', received / records, 'B');
    bench.record(c, 'records sent', records, 'records');
  } finally {
    await exporter.stop();
    await new Promise<void>((r) => sink.close(() => r()));
  }
}

try {
  for (const n of sizes) await run(n);
} finally {
  bench.finish(
    `flow exporter: ${rounds} rounds after the first, every connection due each round (CPU of this process)`,
  );
}
