// nsx-adapter: the Antrea NSX adapter as a process. A composition root only: it reads flags, builds
// the NSX client, the Kubernetes sources and both adapters from @antrea-ts/nsx-adapter, and links
// SIGTERM/SIGINT to one AbortController.
import { readFileSync } from 'node:fs';
import {
  AdapterError,
  CcpAdapter,
  HealthServer,
  KubeCrdClient,
  KubeInventorySource,
  KubeManagedCrdStore,
  KubeStatsSource,
  MpAdapter,
  NsxClient,
  NsxRestChannel,
  PolicyApiCcpChannel,
} from '@antrea-ts/nsx-adapter';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadOptions } from './options.js';

async function main(): Promise<void> {
  let options: ReturnType<typeof loadOptions>;
  try {
    options = loadOptions(process.argv);
  } catch (err) {
    // commander already printed usage/help or its own error; ours are printed here.
    if (AdapterError.is(err)) process.stderr.write(`nsx-adapter: ${err.message}\n`);
    const code = (err as { exitCode?: number }).exitCode;
    process.exitCode = typeof code === 'number' ? code : 2;
    return;
  }
  const logger = pino({
    level: options.logLevel,
    base: { app: 'nsx-adapter', cluster: options.clusterName },
  });
  const read = (f: string | undefined) => (f ? readFileSync(f) : undefined);
  const cert = read(options.certFile);
  const key = read(options.keyFile);
  const ca = read(options.caFile);
  const nsx = new NsxClient({
    baseUrl: options.nsxUrl,
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(ca ? { ca } : {}),
    insecure: options.insecure,
    ...(options.nsxUser && options.nsxPassword
      ? { basicAuth: { user: options.nsxUser, password: options.nsxPassword } }
      : {}),
    timeoutMs: options.nsxTimeoutSeconds * 1000,
  });
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();

  const channel = new NsxRestChannel(nsx, options.clusterName);
  const store = new KubeManagedCrdStore(kc, logger);
  // Realization reports have no public NSX API: they always go to the /rpc channel.
  const ccp = new CcpAdapter({
    channel:
      options.policySource === 'api' ? new PolicyApiCcpChannel(nsx, options.clusterName, channel) : channel,
    store,
    logger,
    longPollMs: options.policyPollSeconds * 1000,
    realizeTimeoutMs: options.realizeTimeoutSeconds * 1000,
  });
  const mp = new MpAdapter({
    channel,
    inventory: new KubeInventorySource(kc, logger),
    crds: new KubeCrdClient(kc),
    logger,
    clusterName: options.clusterName,
    ...(options.register && cert ? { registerCertificate: cert.toString('utf8') } : {}),
    ccpHealth: () => ccp.health(),
    managedPolicies: store,
    stats: new KubeStatsSource(kc),
    statsIntervalMs: options.statsIntervalSeconds * 1000,
    inventoryBatchSize: options.inventoryBatchSize,
    inventoryBatchPeriodMs: options.inventoryBatchPeriodSeconds * 1000,
    ...(options.bundleFileServer ? { bundleFileServer: options.bundleFileServer } : {}),
  });

  const health = new HealthServer({ mp: () => mp.health(), ccp: () => ccp.health() }, logger);

  const abort = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => abort.abort());
  await health.start(options.healthHost, options.healthPort);
  await ccp.start(abort.signal);
  await mp.start(abort.signal);
  logger.info({ nsx: options.nsxUrl }, 'NSX adapter running');
  await new Promise<void>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  await Promise.all([mp.stop(), ccp.stop()]);
  await health.stop();
  nsx.close();
}

main().catch((err: unknown) => {
  pino({ base: { app: 'nsx-adapter' } }).fatal({ err }, 'nsx-adapter failed');
  process.exitCode = 1;
});
