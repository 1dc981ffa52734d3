// bench:egress — how long an Egress takes to act on packets, on the lab (instance 29, 2 Nodes,
// featureGates.Egress on, the default). A TCP server in the root namespace on the underlay answers each
// connection with the peer address it sees. Per run: an Egress with a pool is created through the
// API, and a probe in each client Pod (one on each Node; the Egress Node is whichever the hash picks)
// connects every 20 ms until the server sees the Egress IP; then the Egress is deleted and the probes
// wait for the Node IP again. Times run from just before the API call to the probe's first answer
// with the new address (both clocks are this machine's). Needs root, OVS and the kube binaries.
//   tsc -b e2e && node dist/e2e/egress/bench-egress.js [--json] [--runs 10]
import { createServer } from 'node:net';
import { CRD_KINDS } from '@antrea-ts/apis';
import { BenchReport, poll, run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { e2eLabOptions } from '../framework/lab-options.js';

const INSTANCE = 29;
const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--runs');
const RUNS = at >= 0 ? Number(argv[at + 1]) : 10;
const options = e2eLabOptions(INSTANCE, { owner: 'bench' });
const NODES = [`lab${INSTANCE}-node-1`, `lab${INSTANCE}-node-2`];
const NS = 'egb';
const BASE = `198.19.${INSTANCE}`;
const SERVER_IP = `${BASE}.250`;
const PORT = 8080;

/** In a Pod: connect every 20 ms until the server reports WANT; prints the wall time (ms) it did. */
const PROBE = `
const net = require('node:net');
const [ip, want, port] = process.argv.slice(1);
const once = () => new Promise((resolve) => {
  const s = net.connect({ host: ip, port: Number(port) });
  let out = '';
  const t = setTimeout(() => { s.destroy(); resolve(''); }, 300);
  s.on('data', (d) => { out += d; });
  s.on('end', () => { clearTimeout(t); resolve(out.trim()); });
  s.on('error', () => { clearTimeout(t); resolve(''); });
});
(async () => {
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if ((await once()) === want) { console.log(Date.now()); return; }
    await new Promise((r) => setTimeout(r, 20));
  }
  console.log('timeout');
})();
`;

async function main(): Promise<void> {
  const report = new BenchReport('egress', json);
  await Lab.down(options);
  const lab = await Lab.up({ ...options, nodes: 2 });
  const server = createServer((s) => {
    s.on('error', () => {});
    s.end(`${s.remoteAddress?.replace(/^::ffff:/, '')}\n`);
  });
  try {
    await run(['ip', 'addr', 'add', `${SERVER_IP}/32`, 'dev', lab.layout.underlayBridge]);
    await new Promise<void>((resolve) => server.listen(PORT, SERVER_IP, resolve));
    for (const [i, node] of NODES.entries())
      await lab.createPod({ namespace: NS, name: `client-${i + 1}`, node, labels: { app: 'client' } });
    const kc = new KubeConfig();
    kc.loadFromFile(lab.kubeconfigPath);
    const api = kc.makeApiClient(CustomObjectsApi);
    const pool = CRD_KINDS.ExternalIPPool;
    const eg = CRD_KINDS.Egress;
    await api.createClusterCustomObject({
      group: pool.group,
      version: pool.version,
      plural: pool.plural,
      body: {
        apiVersion: pool.apiVersion,
        kind: 'ExternalIPPool',
        metadata: { name: 'bench-pool' },
        spec: { ipRanges: [{ start: `${BASE}.200`, end: `${BASE}.200` }], nodeSelector: {} },
      },
    });
    const egressIp = `${BASE}.200`;
    const probe = (pod: string, want: string) =>
      lab.exec(NS, pod, ['node', '-e', PROBE, SERVER_IP, want, String(PORT)], { timeoutMs: 90_000 });
    const elapsed = (out: string, t0: number) => {
      if (out.trim() === 'timeout') throw new Error('probe timed out');
      return Number(out.trim()) - t0;
    };
    const samples = { createLocal: [] as number[], createRemote: [] as number[], deleted: [] as number[] };
    for (let r = 0; r < RUNS; r++) {
      const name = `bench-${r}`;
      // The probes start first and wait for the address; the Egress is created while they run.
      const probes = ['client-1', 'client-2'].map((p) => probe(p, egressIp));
      await new Promise((res) => setTimeout(res, 300));
      const t0 = Date.now();
      await api.createClusterCustomObject({
        group: eg.group,
        version: eg.version,
        plural: eg.plural,
        body: {
          apiVersion: eg.apiVersion,
          kind: 'Egress',
          metadata: { name },
          spec: {
            appliedTo: { podSelector: { matchLabels: { app: 'client' } } },
            externalIPPool: 'bench-pool',
          },
        },
      });
      const [o1, o2] = await Promise.all(probes);
      const status = await poll(
        'Egress status',
        async () => {
          const e = (await api.getClusterCustomObject({ ...eg, name })) as {
            status?: { egressNode?: string };
          };
          return e.status?.egressNode;
        },
        { timeoutMs: 30_000 },
      );
      // "Local": the client on the Egress Node; "remote": the one that goes through the tunnel.
      const [local, remote] = status === NODES[0] ? [o1, o2] : [o2, o1];
      samples.createLocal.push(elapsed(local ?? '', t0));
      samples.createRemote.push(elapsed(remote ?? '', t0));
      const back = probe('client-2', lab.node(NODES[1] ?? '').nodeIp);
      await new Promise((res) => setTimeout(res, 300));
      const t1 = Date.now();
      await api.deleteClusterCustomObject({ ...eg, name });
      samples.deleted.push(elapsed(await back, t1));
      // The pool IP is free again before the next run's Egress asks for it.
      await poll(
        'pool IP free',
        async () => {
          const p = (await api.getClusterCustomObject({ ...pool, name: 'bench-pool' })) as {
            status?: { usage?: { used?: number } };
          };
          return p.status?.usage?.used === 0 || undefined;
        },
        { timeoutMs: 30_000 },
      );
    }
    const points = { p50: 50, p95: 95, max: 100 };
    report.recordPercentiles('Egress created: Pod on the Egress Node', samples.createLocal, points, 'ms');
    report.recordPercentiles('Egress created: Pod on the other Node', samples.createRemote, points, 'ms');
    report.recordPercentiles('Egress deleted: Node IP again', samples.deleted, points, 'ms');
    report.note(
      `${RUNS} runs; API call to the first connection the server sees from the new address (probe every 20 ms)`,
    );
  } finally {
    report.finish('Egress to packets (ms)');
    server.close();
    await run(['ip', 'addr', 'del', `${SERVER_IP}/32`, 'dev', lab.layout.underlayBridge]).catch(
      () => undefined,
    );
    await Lab.down(options);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench-egress: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
