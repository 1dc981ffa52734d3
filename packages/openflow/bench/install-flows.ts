/**
 * Benchmark: install realistic conjunctive NetworkPolicy flows into a real ovs-vswitchd through
 * this client (OpenFlow bundles) versus `ovs-ofctl --bundle add-flows` of the same flows from a
 * file. Prints flows/s of each and the ratio; `--json` prints one line per measurement.
 *
 *   npx tsc -b packages/openflow/bench && node packages/openflow/bench/dist/install-flows.js [--json] [--flows N]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchReport, formatBenchMatrix, percentile, startPodBed } from '@antrea-ts/harness';
import { buildMatch, type Flow, formatFlow, load, OpenFlowBridge } from '@antrea-ts/openflow';
import pino from 'pino';

const args = process.argv.slice(2);
const json = args.includes('--json');
const flowsArg = args.indexOf('--flows');
const TOTAL = flowsArg >= 0 ? Number(args[flowsArg + 1]) : 100_000;
const BR = 'br-bench';
const REPEATS = 5;

/**
 * Flows shaped like Antrea's K8s NetworkPolicy ingress rules (pipeline table IngressRule): one
 * conjunctive clause flow per source address, per appliedTo Pod port (reg1) and per service port,
 * plus the conj_id action flow that commits the connection with the rule id in ct_label.
 */
function policyFlows(total: number): Flow[] {
  const flows: Flow[] = [];
  for (let rule = 0; flows.length < total; rule++) {
    const id = rule + 1;
    for (let i = 0; i < 51; i++) {
      flows.push({
        table: 10,
        priority: 200,
        cookie: 0x0500000000000000n | BigInt(id),
        match: buildMatch({ ip: true, nw_src: `10.${(rule >> 8) & 255}.${rule & 255}.${i + 1}` }),
        actions: [{ type: 'conjunction', id, clause: 1, nClauses: 3 }],
      });
    }
    for (let j = 0; j < 40; j++) {
      flows.push({
        table: 10,
        priority: 200,
        cookie: 0x0500000000000000n | BigInt(id),
        match: buildMatch({ ip: true, reg1: rule * 40 + j + 1 }),
        actions: [{ type: 'conjunction', id, clause: 2, nClauses: 3 }],
      });
    }
    for (let k = 0; k < 8; k++) {
      flows.push({
        table: 10,
        priority: 200,
        cookie: 0x0500000000000000n | BigInt(id),
        match: buildMatch({ tcp: true, tcp_dst: 1000 + ((rule * 8 + k) % 60000) }),
        actions: [{ type: 'conjunction', id, clause: 3, nClauses: 3 }],
      });
    }
    flows.push({
      table: 10,
      priority: 190,
      cookie: 0x0500000000000000n | BigInt(id),
      match: buildMatch({ ip: true, conj_id: id }),
      actions: [
        load('reg3', id),
        { type: 'ct', commit: true, zone: 65520, exec: [load('ct_label', id, 0, 31)] },
        { type: 'goto_table', table: 20 },
      ],
    });
  }
  return flows.slice(0, total);
}

interface Result {
  name: string;
  seconds: number;
  flows: number;
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const flows = policyFlows(TOTAL);
  // tcp_dst can repeat across rules once rule*8 wraps; keep only distinct (table, priority, match).
  const seen = new Set<string>();
  const unique = flows.filter((f) => {
    const k = formatFlow({ ...f, actions: [], cookie: 0n });
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow15'], logger });
  const { ovs } = bed;
  const results: Result[] = [];
  const dumpResults: Result[] = [];
  try {
    const bridge = new OpenFlowBridge({ target: { path: ovs.bridgeMgmtSocket(BR) }, logger });
    await bridge.start();
    const count = async (): Promise<number> => {
      const agg = await ovs.ofctl(['-O', 'OpenFlow15', 'dump-aggregate', BR]);
      return Number(/flow_count=(\d+)/.exec(agg)?.[1] ?? -1);
    };
    const reset = async (): Promise<void> => {
      await bridge.deleteFlowsByCookie(0n, 0n);
    };
    // Cases run round-robin REPEATS times (so load drift on a shared machine hits all of them
    // alike); each run starts from an empty table and is checked afterwards; median reported.
    const file = join(ovs.runDir, 'flows.txt');
    writeFileSync(file, `${unique.map((f) => formatFlow(f)).join('\n')}\n`);
    const cases: Array<[string, () => Promise<void>]> = [
      ['antrea-ts: 1 bundle', () => bridge.addFlows(unique)],
      [
        'antrea-ts: bundles of 10k',
        async () => {
          for (let i = 0; i < unique.length; i += 10_000) await bridge.addFlows(unique.slice(i, i + 10_000));
        },
      ],
      [
        'ovs-ofctl --bundle add-flows',
        async () => {
          await ovs.ofctl(['-O', 'OpenFlow15', '--bundle', 'add-flows', BR, file]);
        },
      ],
    ];
    // Warm-up (not reported): JIT and OVS classifier allocation.
    await bridge.addFlows(unique);
    const runs = new Map<string, number[]>(cases.map(([n]) => [n, []]));
    for (let i = 0; i < REPEATS; i++) {
      for (const [name, fn] of cases) {
        await reset();
        await new Promise((r) => setTimeout(r, 200));
        const t0 = process.hrtime.bigint();
        await fn();
        runs.get(name)!.push(Number(process.hrtime.bigint() - t0) / 1e9);
        const n = await count();
        if (n !== unique.length)
          throw new Error(`${name}: expected ${unique.length} flows installed, found ${n}`);
      }
    }
    for (const [name, times] of runs)
      results.push({ name, seconds: percentile(times, 50), flows: unique.length });
    // Reading the table back: flow stats through our client vs ovs-ofctl dump-flows (text).
    const dumps: Array<[string, () => Promise<number>]> = [
      ['dump: antrea-ts dumpFlows', async () => (await bridge.dumpFlows()).length],
      [
        'dump: ovs-ofctl dump-flows',
        async () =>
          (await ovs.ofctl(['-O', 'OpenFlow15', '--no-stats', 'dump-flows', BR])).split('\n').length - 1,
      ],
    ];
    const dumpRuns = new Map<string, number[]>(dumps.map(([n]) => [n, []]));
    for (let i = 0; i < REPEATS; i++) {
      for (const [name, fn] of dumps) {
        const t0 = process.hrtime.bigint();
        const n = await fn();
        dumpRuns.get(name)!.push(Number(process.hrtime.bigint() - t0) / 1e9);
        if (n < unique.length) throw new Error(`${name}: read ${n} flows, expected ${unique.length}`);
      }
    }
    for (const [name, times] of dumpRuns)
      dumpResults.push({ name, seconds: percentile(times, 50), flows: unique.length });
    await bridge.stop();
  } finally {
    await bed.stop();
  }

  const rate = (r: Result): number => r.flows / r.seconds;
  const baselineOf = (r: Result): Result =>
    (r.name.startsWith('dump') ? dumpResults : results).find((x) => x.name.includes('ovs-ofctl'))!;
  const report = new BenchReport('openflow-install-flows', json, { table: formatBenchMatrix });
  for (const r of [...results, ...dumpResults]) {
    report.record(r.name, 'flows_per_sec', Math.round(rate(r)), 'flows/s');
    report.record(r.name, 'seconds', r.seconds, 's');
    report.record(r.name, 'ratio_vs_ovs_ofctl', rate(r) / rate(baselineOf(r)), 'x');
  }
  report.finish(
    `${unique.length} conjunctive policy flows (100 per rule), real ovs-vswitchd (userspace), OpenFlow 1.5, median of ${REPEATS}`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
