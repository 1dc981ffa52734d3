import { BenchReport } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { e2eLabOptions } from '../framework/lab-options.js';
import { firstAnswerAt } from '../framework/outside-client.js';

const INSTANCE = 32;
const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--runs');
const RUNS = at >= 0 ? Number(argv[at + 1]) : 10;
const options = e2eLabOptions(INSTANCE, { owner: 'bench' });
const NODES = [`lab${INSTANCE}-node-1`, `lab${INSTANCE}-node-2`] as const;
const NS = 'pab';
const PORT = 8081;

async function main(): Promise<void> {
  const report = new BenchReport('proxy-all', json);
  await Lab.down(options);
  const lab = await Lab.up({ ...options, nodes: 2 });
  try {
    for (const node of NODES) {
      await lab.configureAgent(node, 'antreaProxy:\n  proxyAll: true\n');
    }
    await lab.createPod({
      namespace: NS,
      name: 's1',
      node: NODES[0],
      labels: { app: 'web' },
      ports: [{ port: PORT, protocol: 'TCP' }],
    });
    const kc = new KubeConfig();
    kc.loadFromFile(lab.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const ips = NODES.map((n) => lab.node(n).nodeIp);
    const samples = { local: [] as number[], remote: [] as number[], deleted: [] as number[] };
    for (let r = 0; r < RUNS; r++) {
      const nodePort = 30100 + r;
      const answered = (a: string) => a === `${NS}/s1`;
      const gone = (a: string) => !answered(a);
      const probes = ips.map((ip) => firstAnswerAt(ip, nodePort, answered));
      const t0 = Date.now();
      await core.createNamespacedService({
        namespace: NS,
        body: {
          metadata: { name: `bench-${r}` },
          spec: {
            type: 'NodePort',
            selector: { app: 'web' },
            ports: [{ port: 80, targetPort: PORT, nodePort, protocol: 'TCP' }],
          },
        },
      });
      const [local, remote] = await Promise.all(probes);
      samples.local.push(local! - t0);
      samples.remote.push(remote! - t0);
      const t1 = Date.now();
      await core.deleteNamespacedService({ namespace: NS, name: `bench-${r}` });
      samples.deleted.push((await firstAnswerAt(ips[0]!, nodePort, gone)) - t1);
    }
    const points = { p50: 50, p95: 95, max: 100 };
    report.recordPercentiles('NodePort created: endpoint on the Node', samples.local, points, 'ms');
    report.recordPercentiles('NodePort created: endpoint on the other Node', samples.remote, points, 'ms');
    report.recordPercentiles('NodePort deleted: no answer', samples.deleted, points, 'ms');
    report.note(
      `${RUNS} runs; API call to the first answer from outside (probe every 20 ms, 300 ms timeout)`,
    );
  } finally {
    report.finish('NodePort Service to packets from outside (ms)');
    await Lab.down(options);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench-proxy-all: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
