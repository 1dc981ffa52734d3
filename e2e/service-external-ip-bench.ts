// bench:service-external-ip — how long a LoadBalancer Service annotated with an ExternalIPPool takes
// to answer from outside the cluster, on the lab (instance 39, 2 Nodes, featureGates.ServiceExternalIP
// on the controller and the agents, antreaProxy.proxyAll, one server Pod on Node 1). Per run the
// Service is created through the API while this process (the outside host, root namespace on the
// underlay, its ARP entry for the IP flushed) connects every 20 ms to the pool's IP: the controller
// allocates it, an agent answers ARP for it, AntreaProxy routes and load-balances it. Times run from
// just before the API call to the first answer from the Pod; then the Service is deleted and the time
// until the IP stops answering is taken; also when a Node's proxy ARP entry for the IP appears (polled
// with `ip neigh` every 20 ms). Needs root, OVS and the kube binaries.
//   tsc -b e2e && node dist/e2e/service-external-ip-bench.js [--json] [--runs 10]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BenchReport } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { e2eLabOptions } from './framework/lab-options.js';
import { firstAnswerAt } from './framework/outside-client.js';

const INSTANCE = 39;
const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--runs');
const RUNS = at >= 0 ? Number(argv[at + 1]) : 10;
const options = e2eLabOptions(INSTANCE, { owner: 'bench' });
const NODES = [`lab${INSTANCE}-node-1`, `lab${INSTANCE}-node-2`] as const;
const NS = 'sxb';
const PORT = 8081;
/** The pool's one IP: each run's Service gets it again once the previous one released it. */
const IP = `198.19.${INSTANCE}.200`;
const exec = promisify(execFile);

/** Polls both Nodes every 20 ms until one answers ARP for IP; resolves with that time (ms since epoch). */
async function proxyEntryAt(netns: readonly string[]): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const outs = await Promise.all(
      netns.map((n) => exec('ip', ['-n', n, '-4', 'neigh', 'show', 'proxy']).then((r) => r.stdout)),
    );
    if (outs.some((o) => o.includes(`${IP} `))) return Date.now();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no Node answers for ${IP}`);
}

async function main(): Promise<void> {
  const report = new BenchReport('service-external-ip', json);
  await Lab.down(options);
  const lab = await Lab.up({ ...options, nodes: 2, controllerFeatureGates: { ServiceExternalIP: true } });
  try {
    for (const node of NODES) {
      await lab.configureAgent(
        node,
        'antreaProxy:\n  proxyAll: true\nfeatureGates:\n  ServiceExternalIP: true\n',
      );
    }
    await lab.createPod({
      namespace: NS,
      name: 's1',
      node: NODES[0],
      labels: { app: 'web' },
      ports: [{ port: PORT, protocol: 'TCP' }],
    });
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ExternalIPPool',
        metadata: { name: 'bench-pool' },
        spec: { ipRanges: [{ start: IP, end: IP }], nodeSelector: {} },
      }),
    });
    const kc = new KubeConfig();
    kc.loadFromFile(lab.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const samples = { entry: [] as number[], created: [] as number[], deleted: [] as number[] };
    const netns = NODES.map((n) => lab.node(n).netns);
    const answered = (a: string) => a === `${NS}/s1`;
    for (let r = 0; r < RUNS; r++) {
      await exec('ip', ['neigh', 'flush', 'to', IP]).catch(() => undefined);
      const probe = firstAnswerAt(IP, 80, answered);
      const entry = proxyEntryAt(netns);
      const t0 = Date.now();
      await core.createNamespacedService({
        namespace: NS,
        body: {
          metadata: {
            name: `bench-${r}`,
            annotations: { 'service.antrea.io/external-ip-pool': 'bench-pool' },
          },
          spec: {
            type: 'LoadBalancer',
            selector: { app: 'web' },
            ports: [{ port: 80, targetPort: PORT, protocol: 'TCP' }],
          },
        },
      });
      samples.entry.push((await entry) - t0);
      samples.created.push((await probe) - t0);
      const t1 = Date.now();
      await core.deleteNamespacedService({ namespace: NS, name: `bench-${r}` });
      samples.deleted.push((await firstAnswerAt(IP, 80, (a) => !answered(a))) - t1);
    }
    const points = { p50: 50, p95: 95, max: 100 };
    report.recordPercentiles(
      'LoadBalancer created: first answer from outside',
      samples.created,
      points,
      'ms',
    );
    report.recordPercentiles('LoadBalancer created: a Node answers ARP for it', samples.entry, points, 'ms');
    report.recordPercentiles('LoadBalancer deleted: no answer', samples.deleted, points, 'ms');
    report.note(
      `${RUNS} runs; API call to the first answer (probe every 20 ms, 300 ms timeout; ARP entry flushed)`,
    );
  } finally {
    report.finish('ServiceExternalIP: LoadBalancer Service to packets from outside (ms)');
    await exec('ip', ['neigh', 'flush', 'to', IP]).catch(() => undefined);
    await Lab.down(options);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench-service-external-ip: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
