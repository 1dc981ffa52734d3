// bench:egress-startup — what featureGates.Egress costs an agent's start, on the lab (instance 33,
// 2 Nodes). The agent of Node 1 is restarted RUNS times per case, off and on interleaved (the load
// of the shared machine drifts): first without any Egress in the API, then with one Egress (a pool
// IP held by one of the Nodes; off, the agent removes it if it held it). Per
// restart, from the agent's own log: its first line to "agent ready", and, with Egress on, when its
// Egress flows were synced with the controller's EgressGroups, counted from the Egress start
// ("Egress flows synced with the controller", msSinceStart; the agent's start does not wait for it).
// Needs root, OVS and the kube binaries.
//   tsc -b e2e && node dist/e2e/egress/bench-egress-startup.js [--json] [--runs 5]
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_KINDS } from '@antrea-ts/apis';
import { BenchReport, poll } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { e2eLabOptions } from '../framework/lab-options.js';

const INSTANCE = 33;
const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--runs');
const RUNS = at >= 0 ? Number(argv[at + 1]) : 5;
const options = e2eLabOptions(INSTANCE, { owner: 'bench' });
const NODE = `lab${INSTANCE}-node-1`;
const AGENT = `antrea-agent@${NODE}`;

interface LogLine {
  time: number;
  msg?: string;
  msSinceStart?: number;
}

/** The log lines written since byte `from`. */
function linesSince(path: string, from: number): LogLine[] {
  const size = statSync(path).size;
  const buf = Buffer.alloc(size - from);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  return buf
    .toString('utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
}

async function main(): Promise<void> {
  const report = new BenchReport('egress-startup', json);
  await Lab.down(options);
  const lab = await Lab.up({ ...options, nodes: 2 });
  try {
    const confPath = join(lab.layout.nodeDir(NODE), 'antrea-agent.conf');
    const baseConf = readFileSync(confPath, 'utf8');
    const log = lab.state.processes.find((p) => p.name === AGENT)?.log ?? '';
    const kc = new KubeConfig();
    kc.loadFromFile(lab.kubeconfigPath);
    const api = kc.makeApiClient(CustomObjectsApi);
    const ready = new Map<string, number[]>();
    const waited = new Map<string, number[]>();
    const add = (m: Map<string, number[]>, label: string, v: number) =>
      m.set(label, [...(m.get(label) ?? []), v]);
    const restart = async (label: string, egress: boolean) => {
      writeFileSync(confPath, `${baseConf}featureGates:\n  Egress: ${egress}\n`);
      const from = statSync(log).size;
      await lab.restart(AGENT);
      const done = (l: LogLine[]) =>
        l.some((x) => x.msg === 'agent ready') &&
        (!egress || l.some((x) => x.msg === 'Egress flows synced with the controller'));
      const lines = await poll(
        'agent ready in the log',
        async () => {
          const l = linesSince(log, from);
          return done(l) ? l : undefined;
        },
        { timeoutMs: 30_000 },
      );
      const first = lines[0]?.time ?? 0;
      const readyAt = lines.find((x) => x.msg === 'agent ready')?.time ?? 0;
      add(ready, label, readyAt - first);
      const w = lines.find((x) => x.msg === 'Egress flows synced with the controller')?.msSinceStart;
      if (w !== undefined) add(waited, label, w);
    };
    for (let r = 0; r < RUNS; r++) {
      await restart('no Egress: gate off', false);
      await restart('no Egress: gate on', true);
    }
    const pool = CRD_KINDS.ExternalIPPool;
    const eg = CRD_KINDS.Egress;
    const base = `198.19.${INSTANCE}`;
    await api.createClusterCustomObject({
      ...pool,
      body: {
        apiVersion: pool.apiVersion,
        kind: 'ExternalIPPool',
        metadata: { name: 'startup-pool' },
        spec: { ipRanges: [{ start: `${base}.200`, end: `${base}.200` }], nodeSelector: {} },
      },
    });
    await api.createClusterCustomObject({
      ...eg,
      body: {
        apiVersion: eg.apiVersion,
        kind: 'Egress',
        metadata: { name: 'startup' },
        spec: { appliedTo: { podSelector: {} }, externalIPPool: 'startup-pool' },
      },
    });
    for (let r = 0; r < RUNS; r++) {
      await restart('one Egress: gate off', false);
      await restart('one Egress: gate on', true);
    }
    const points = { p50: 50, max: 100 };
    for (const [label, samples] of ready)
      report.recordPercentiles(`${label}: first log line to ready`, samples, points, 'ms');
    for (const [label, samples] of waited)
      report.recordPercentiles(`${label}: Egress start to flows synced`, samples, points, 'ms');
    report.note(`${RUNS} restarts per case of the agent of ${NODE}, gate off and on interleaved`);
  } finally {
    report.finish('Agent start with the Egress gate (ms)');
    await Lab.down(options);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench-egress-startup: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
