// bench:traceflow — how long a Traceflow takes on the lab, from creating the CR to the controller's
// Running (tag allocated) and Succeeded (every Node's result in): intra-Node and inter-Node (tunnel)
// ICMP, N runs each, one at a time. Instance 20 of the lab names (lab20-*, as the Traceflow e2e: do
// not run both at once). Needs root, OVS and the kube binaries, like the integration tests.
//   tsc -b test && node dist/test/traceflow/bench-traceflow.js [--json] [--runs 10]
import type { Traceflow } from '@antrea-ts/apis';
import { BenchReport } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';
import { benchMain, freshLab } from '../agent-policy/lab-run.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 10;
const options = e2eLabOptions(20, { owner: 'bench' });
const CRD = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'traceflows' };
const POLL_MS = 20;

const report = new BenchReport('traceflow', json);

/** One Traceflow: ms until Running and until Succeeded (throws if it fails). */
async function once(api: CustomObjectsApi, name: string, dst: string): Promise<[number, number]> {
  const start = performance.now();
  await api.createClusterCustomObject({
    ...CRD,
    body: {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: { name },
      spec: {
        source: { namespace: 'tf', pod: 'a' },
        destination: { namespace: 'tf', pod: dst },
        timeout: 30,
      },
    },
  });
  let running: number | undefined;
  for (;;) {
    const tf = (await api.getClusterCustomObject({ ...CRD, name })) as Traceflow;
    const phase = tf.status?.phase;
    if (phase && running === undefined) running = performance.now() - start;
    if (phase === 'Succeeded') {
      const done = performance.now() - start;
      await api.deleteClusterCustomObject({ ...CRD, name });
      return [running!, done];
    }
    if (phase === 'Failed') throw new Error(`Traceflow ${name} failed: ${tf.status?.reason}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function main(): Promise<void> {
  const lab = await freshLab(options, 2);
  try {
    const [n1, n2] = lab.state.nodes.map((n) => n.name);
    await lab.createPod({ namespace: 'tf', name: 'a', node: n1! });
    await lab.createPod({ namespace: 'tf', name: 'b', node: n1! });
    await lab.createPod({ namespace: 'tf', name: 'c', node: n2! });
    const kc = new KubeConfig();
    kc.loadFromFile(lab.kubeconfigPath);
    const api = kc.makeApiClient(CustomObjectsApi);
    for (const [c, dst] of [
      ['intra-Node', 'b'],
      ['inter-Node', 'c'],
    ] as const) {
      const running: number[] = [];
      const done: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const [r, d] = await once(api, `bench-${dst}-${i}`, dst);
        running.push(r);
        done.push(d);
      }
      report.recordPercentiles(c, running, { 'running p50': 50 }, 'ms');
      report.recordPercentiles(
        c,
        done,
        { 'succeeded p50': 50, 'succeeded p95': 95, 'succeeded max': 100 },
        'ms',
      );
    }
  } finally {
    report.finish();
    await Lab.down(options);
  }
}

benchMain('bench:traceflow', main);
