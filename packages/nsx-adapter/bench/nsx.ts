// NSX adapter speed, against a real kube-apiserver and the NSX simulator on loopback.
//   npm run bench:nsx -w @antrea-ts/nsx-adapter [-- --json] [--cases ccp,inventory]
//     [--policies N --rules N --groups N --pods N]
// Cases:
//   ccp: P security policies x R rules over G groups spanned to the cluster; adapter cold start ->
//        every ClusterNetworkPolicy present in kube-apiserver -> every one Realized by a real
//        antrea-controller (dist/cmd/antrea-controller as a process; no Nodes, so the span is empty
//        and realization is the controller's computation and status write) -> every policy SUCCESS
//        in NSX (the adapter's realization reports); then one rule change -> the ACNP updated.
//   inventory: N Pods created in kube-apiserver directly; MP adapter cold start -> every Pod in the
//        NSX inventory (batch size 50 = the real adapter's default, and 500).
// --json prints one line per measurement: {"bench","case","metric","value","unit"}.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BenchReport, freePort, installCrds, startKube } from '@antrea-ts/harness';
import {
  CcpAdapter,
  KubeCrdClient,
  KubeInventorySource,
  KubeManagedCrdStore,
  MpAdapter,
  NsxClient,
  NsxRestChannel,
  type PolicyFeed,
  translateFeed,
} from '@antrea-ts/nsx-adapter';
import { generateClientCertificate, memoryPersistence, NsxSimServer, SimStore } from '@antrea-ts/nsx-sim';
import { benchArgs, policyWorkload } from '@antrea-ts/nsx-sim/benchmark';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';

const args = benchArgs(process.argv.slice(2));
const POLICIES = args.number('policies', 500);
const RULES = args.number('rules', 10);
const GROUPS = args.number('groups', 1000);
const PODS = args.number('pods', 10_000);
const CASES = new Set(args.string('cases', 'ccp,inventory').split(','));
const CLUSTER = 'bench';
const CLUSTER_PATH = `/infra/sites/default/enforcement-points/default/cluster-control-planes/${CLUSTER}`;
const P = '/policy/api/v1';
const crdDir = fileURLToPath(new URL('../../../../build/crds/', import.meta.url));
const logger = pino({ level: process.env['BENCH_LOG_LEVEL'] ?? 'silent' });

const report = new BenchReport('nsx', args.json);
const record = report.record.bind(report);

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function until(
  cond: () => Promise<boolean>,
  what: string,
  timeoutMs = 600_000,
  everyMs = 100,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** antrea-controller as its own process (as deployed), serving on a free loopback port. */
async function startController(kubeconfig: string): Promise<ChildProcess> {
  const port = await freePort();
  const main = fileURLToPath(new URL('../../../../dist/cmd/antrea-controller/main.js', import.meta.url));
  const args = ['--kubeconfig', kubeconfig, '--bind-address', '127.0.0.1', '--api-port', String(port)];
  return spawn(process.execPath, [main, ...args, '--no-publish-ca-bundle', '--no-webhooks'], {
    stdio: 'ignore',
  });
}

async function main(): Promise<void> {
  const kube = await startKube();
  const store = new SimStore(memoryPersistence, logger);
  const sim = new NsxSimServer({ logger, store, port: 0, auth: false });
  const url = await sim.start();
  const nsx = new NsxClient({ baseUrl: url, timeoutMs: 120_000 });
  try {
    await installCrds(kube, [crdDir]);
    const { cert } = await generateClientCertificate(kube.dir, CLUSTER);
    const ccp = await nsx.request<{ node_id: string }>('PUT', `${P}${CLUSTER_PATH}`, { certificate: cert });
    if (CASES.has('ccp')) {
      const controller = await startController(kube.kubeconfigPath);
      try {
        await ccpCase(kube.kubeConfig, nsx, store);
      } finally {
        controller.kill('SIGTERM');
      }
    }
    if (CASES.has('inventory')) await inventoryCase(kube, nsx, ccp.node_id);
  } finally {
    nsx.close();
    await sim.stop();
    await kube.stop();
  }
  report.finish();
}

async function ccpCase(
  kc: import('@kubernetes/client-node').KubeConfig,
  nsx: NsxClient,
  store: SimStore,
): Promise<void> {
  const name = `ccp-${POLICIES}x${RULES}-g${GROUPS}`;
  const D = `${P}/infra/domains/default`;
  for (const { path, body } of policyWorkload({
    policies: POLICIES,
    rules: RULES,
    groups: GROUPS,
    cluster: CLUSTER,
  }))
    await nsx.request('PATCH', `${P}${path}`, body);
  const channel = new NsxRestChannel(nsx, CLUSTER);
  let t0 = process.hrtime.bigint();
  const feed = await channel.getFeed();
  record(name, 'feed-fetch', ms(t0), 'ms');
  t0 = process.hrtime.bigint();
  const desired = translateFeed(feed as PolicyFeed);
  record(name, 'translate', ms(t0), 'ms');
  record(name, 'cluster-groups', desired.clusterGroups.length, 'objects');

  const api = kc.makeApiClient(CustomObjectsApi);
  // limit=1 + remainingItemCount: counting must not load the apiserver it measures.
  const count = async () => {
    const page = (await api.listClusterCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      plural: 'clusternetworkpolicies',
      limit: 1,
    })) as { items: unknown[]; metadata?: { remainingItemCount?: number } };
    return page.items.length + (page.metadata?.remainingItemCount ?? 0);
  };
  const adapter = new CcpAdapter({
    channel,
    store: new KubeManagedCrdStore(kc, logger),
    logger,
    longPollMs: 5000,
  });
  t0 = process.hrtime.bigint();
  await adapter.start();
  await until(async () => (await count()) >= POLICIES, 'every ACNP', 600_000, 50);
  record(name, 'cold-start-to-all-acnps', ms(t0), 'ms');
  record(name, 'acnps', await count(), 'objects');
  // Realized: the controller's status on every ACNP; then NSX's own record of each policy (read
  // from the in-process simulator's state: 500 REST status reads per poll would load what is measured).
  const realized = async () => {
    const list = (await api.listClusterCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      plural: 'clusternetworkpolicies',
    })) as { items: { status?: { phase?: string } }[] };
    return list.items.filter((o) => o.status?.phase === 'Realized').length;
  };
  await until(async () => (await realized()) >= POLICIES, 'every ACNP Realized', 600_000, 250);
  record(name, 'cold-start-to-all-realized', ms(t0), 'ms');
  const succeeded = () =>
    Object.values(store.state.realization).filter((byCluster) => byCluster[CLUSTER]?.state === 'SUCCESS')
      .length;
  await until(async () => succeeded() >= POLICIES, 'every policy SUCCESS in NSX', 600_000, 50);
  record(name, 'cold-start-to-all-success-in-nsx', ms(t0), 'ms');

  // One rule change in NSX -> the ACNP in the API.
  const target = (await nsx.request<{ unique_id: string }>('GET', `${D}/security-policies/p7`)).unique_id;
  t0 = process.hrtime.bigint();
  await nsx.request('PATCH', `${D}/security-policies/p7/rules/r0`, { action: 'REJECT' });
  await until(
    async () => {
      const o = (await api.getClusterCustomObject({
        group: 'crd.antrea.io',
        version: 'v1beta1',
        plural: 'clusternetworkpolicies',
        name: target,
      })) as {
        spec: { ingress: { action: string }[] };
      };
      return o.spec.ingress[0]?.action === 'Reject';
    },
    'rule change',
    60_000,
    10,
  );
  record(name, 'rule-change-to-acnp', ms(t0), 'ms');
  await adapter.stop();
}

async function inventoryCase(
  kube: Awaited<ReturnType<typeof startKube>>,
  nsx: NsxClient,
  clusterUuid: string,
): Promise<void> {
  await kube.kubectl(['create', 'namespace', 'bench']);
  const t0c = process.hrtime.bigint();
  const CHUNK = 500;
  for (let i = 0; i < PODS; i += CHUNK) {
    const items = Array.from({ length: Math.min(CHUNK, PODS - i) }, (_, j) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `p-${i + j}`,
        namespace: 'bench',
        labels: { app: `app-${(i + j) % 100}`, tier: 'web' },
      },
      spec: { containers: [{ name: 'c', image: 'registry.invalid/none' }] },
    }));
    await kube.kubectl(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
    });
  }
  report.note(`created ${PODS} Pods in ${(ms(t0c) / 1000).toFixed(1)} s`);
  for (const batch of [50, 500]) {
    const name = `inventory-${PODS}-pods-batch${batch}`;
    // Cold start: NSX has no inventory for the cluster.
    await nsx.request('DELETE', `/api/v1/fabric/container-clusters/${clusterUuid}`);
    const adapter = new MpAdapter({
      channel: new NsxRestChannel(nsx, CLUSTER),
      inventory: new KubeInventorySource(kube.kubeConfig, logger),
      crds: new KubeCrdClient(kube.kubeConfig),
      logger,
      clusterName: CLUSTER,
      inventoryBatchSize: batch,
      inventoryBatchPeriodMs: 1000,
      heartbeatIntervalMs: 600_000,
    });
    const t0 = process.hrtime.bigint();
    await adapter.start();
    await until(
      async () => {
        const r = await nsx.request<{ result_count: number }>(
          'GET',
          '/api/v1/fabric/container-application-instances',
          undefined,
          {
            query: { container_cluster_id: clusterUuid, page_size: 1 },
          },
        );
        return r.result_count >= PODS;
      },
      'every Pod in NSX',
      600_000,
      50,
    );
    const t = ms(t0);
    record(name, 'cold-start-to-all-pods', t, 'ms');
    record(name, 'pods-per-second', (PODS / t) * 1000, 'pods/s');
    await adapter.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
