// bench:enforce — time from a NetworkPolicy change to enforcement on real packets, on a 3-Node lab
// (instance 15: lab15-*). A client Pod on Node 1 opens a fresh TCP connection every few ms to a
// server on Node 2 (cross-node) and to one on Node 1 (same-node), from a long-lived prober in its
// netns (enforce-prober.mjs). A policy (a K8s NetworkPolicy, then an Antrea ClusterNetworkPolicy)
// is flipped through the Kubernetes API between allowing and denying the client; each change is
// timed from just before the write and from the write's return to the first connection attempt
// that shows the new behaviour (enforce-detect.ts), per direction. The agents' logs split the time
// into phases (enforce-breakdown.ts). Needs root, OVS and the kube binaries, like the integration
// tests.
//   tsc -b test && node dist/test/agent-policy/bench-enforce.js [--json] [--changes 50]
//     [--kinds k8s-np,acnp] [--interval-ms 5] [--timeout-ms 200] [--confirm-ms 300]
import { readFile } from 'node:fs/promises';
import { BenchReport, formatBenchMatrix, percentile } from '@antrea-ts/harness';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';
import { changePhases, parseRealizations } from './enforce-breakdown.js';
import type { Want } from './enforce-detect.js';
import { ProbeStream } from './enforce-probe-stream.js';
import {
  type ChangeOutcome,
  createEnforcePods,
  flipPolicy,
  type MeasureOptions,
  measureChange,
  POLICY_KINDS,
  type PolicyKind,
  PolicyWriter,
  SERVER_PORT,
  waitSettled,
} from './enforce-run.js';
import { benchMain, freshLab } from './lab-run.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
function flag(name: string, fallback: string): string {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1]! : fallback;
}
const CHANGES = Number(flag('--changes', '50'));
const KINDS = flag('--kinds', POLICY_KINDS.join(',')).split(',') as PolicyKind[];
const INTERVAL_MS = Number(flag('--interval-ms', '5'));
const TIMEOUT_MS = Number(flag('--timeout-ms', '200'));
const MEASURE: MeasureOptions = { confirmMs: Number(flag('--confirm-ms', '300')), giveUpMs: 30_000 };
const options = e2eLabOptions(15, { owner: 'bench' });

interface Row {
  table: string;
  case: string;
  metric: string;
  value: number;
  unit: string;
}
const rows: Row[] = [];
const DIRECTION: Record<Want, string> = { allow: 'deny->allow', deny: 'allow->deny' };

function stats(table: string, c: string, label: string, values: number[]): void {
  for (const [name, p] of [
    ['p50', 50],
    ['p99', 99],
    ['max', 100],
  ] as const) {
    rows.push({ table, case: c, metric: `${label} ${name}`, value: percentile(values, p), unit: 'ms' });
  }
}

/**
 * Text: one table per `table`, a line per case and a column per metric; --json: a line per value
 * (grouped by table).
 */
function print(): void {
  for (const table of new Set(rows.map((r) => r.table))) {
    const report = new BenchReport('enforce', json, { table: formatBenchMatrix });
    for (const r of rows) if (r.table === table) report.record(r.case, r.metric, r.value, r.unit);
    report.finish(`\n${table}`);
  }
}

async function main(): Promise<void> {
  const lab = await freshLab(options, 3, false);
  try {
    const pods = await createEnforcePods(lab);
    const stream = new ProbeStream({
      netns: pods.client.netns,
      targets: pods.servers.map((s) => `${s.pod.ips[0]}:${SERVER_PORT}`),
      intervalMs: INTERVAL_MS,
      timeoutMs: TIMEOUT_MS,
    });
    const n = pods.servers.length;
    const outcomes: Array<{ kind: PolicyKind; outcome: ChangeOutcome }> = [];
    try {
      await waitSettled(stream, n, MEASURE, 'allow');
      const writer = new PolicyWriter(lab.kubeconfigPath);
      for (const kind of KINDS) {
        await writer.create(flipPolicy(kind, false));
        await waitSettled(stream, n, MEASURE, 'deny');
        for (let i = 0; i < 2 * CHANGES; i++) {
          const want: Want = i % 2 === 0 ? 'allow' : 'deny';
          const policy = flipPolicy(kind, want === 'allow');
          const outcome = await measureChange(stream, n, want, () => writer.patch(policy), MEASURE);
          outcomes.push({ kind, outcome });
          if (outcome.targets.some((t) => !t.transition)) await waitSettled(stream, n, MEASURE, want);
        }
        await writer.delete(flipPolicy(kind, true));
        await waitSettled(stream, n, MEASURE, 'allow');
      }
      for (const [t, server] of pods.servers.entries()) {
        rows.push({
          table: 'prober',
          case: server.placement,
          metric: 'mean interval',
          value: stream.meanIntervalMs(t),
          unit: 'ms',
        });
      }
      writer.close();
    } finally {
      await stream.stop();
    }

    const logs = new Map<string, ReturnType<typeof parseRealizations>>();
    for (const s of pods.servers) {
      const text = await readFile(lab.layout.log(`${s.pod.node}-antrea-agent`), 'utf8').catch(() => '');
      logs.set(s.pod.node, parseRealizations(text));
    }
    for (const kind of KINDS) {
      const mine = outcomes.filter((o) => o.kind === kind).map((o) => o.outcome);
      stats(
        'API write (ms)',
        kind,
        'write',
        mine.map((o) => o.writeReturn - o.writeStart),
      );
      for (const [t, server] of pods.servers.entries()) {
        for (const want of ['allow', 'deny'] as const) {
          const c = `${kind} ${server.placement} ${DIRECTION[want]}`;
          const changes = mine.filter((o) => o.want === want);
          const hits = changes.flatMap((o) => {
            const tr = o.targets[t]!.transition;
            return tr ? [{ o, tr }] : [];
          });
          const table = 'change to enforcement on packets (ms)';
          stats(
            table,
            c,
            'from write',
            hits.map(({ o, tr }) => tr.enforcedAt - o.writeStart),
          );
          stats(
            table,
            c,
            'from return',
            hits.map(({ o, tr }) => tr.enforcedAt - o.writeReturn),
          );
          const count = (metric: string, value: number) =>
            rows.push({ table, case: c, metric, value, unit: 'changes' });
          count('n', changes.length);
          count('missed', changes.length - hits.length);
          count('unsettled', changes.filter((o) => !o.targets[t]!.settledBefore).length);
          // Attempts that disagreed with the policy in force (slow connects, or a flapping
          // datapath), and how many changes had any: a few attempts in one change is a stall.
          count('stray changes', hits.filter((h) => h.tr.stray > 0).length);
          rows.push({
            table,
            case: c,
            metric: 'stray attempts',
            value: hits.reduce((s, h) => s + h.tr.stray, 0),
            unit: 'attempts',
          });
          const phases = hits.flatMap(({ o, tr }) => {
            const p = changePhases(
              logs.get(server.pod.node) ?? [],
              o.writeStart,
              o.writeReturn,
              tr.enforcedAt,
            );
            return p ? [p] : [];
          });
          const ptable = "phases, from the server Node's agent log (ms)";
          for (const key of ['toAgent', 'afterWrite', 'agent', 'toPackets'] as const) {
            const v = phases.map((p) => p[key]);
            for (const q of [50, 99]) {
              rows.push({
                table: ptable,
                case: c,
                metric: `${key} p${q}`,
                value: percentile(v, q),
                unit: 'ms',
              });
            }
          }
          rows.push({
            table: ptable,
            case: c,
            metric: 'realizations p50',
            value: percentile(
              phases.map((p) => p.realizations),
              50,
            ),
            unit: 'count',
          });
        }
      }
    }
  } finally {
    await lab.down();
  }
  // After the lab is down: a reader that closes the pipe early must not leave the lab running.
  print();
}

benchMain('bench-enforce', main);
