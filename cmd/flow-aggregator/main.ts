// flow-aggregator: Antrea's Flow Aggregator as a process. A composition root only: it reads
// flow-aggregator.conf, builds the exporters the config enables, the aggregator and its health
// endpoints, and links SIGTERM/SIGINT to one AbortController.
import { randomInt } from 'node:crypto';
import {
  CertificateProvider,
  FlowAggregator,
  type FlowRecordExporter,
  fillPodMetadata,
  HealthServer,
  IpfixFlowExporter,
  LogExporter,
  PodInformer,
} from '@antrea-ts/flow-aggregator';
import { KubeConfig } from '@kubernetes/client-node';
import { type Logger, pino } from 'pino';
import { type FlowAggregatorOptions, loadOptions } from './options.js';

const CERTIFICATE_CHECK_MS = 3_600_000;

function exporters(o: FlowAggregatorOptions, logger: Logger): FlowRecordExporter[] {
  const out: FlowRecordExporter[] = [];
  const fc = o.config.flowCollector;
  if (fc.enable)
    out.push(
      new IpfixFlowExporter({
        host: fc.host,
        port: fc.port,
        transport: fc.transport,
        // Antrea derives it from the cluster UUID; without one it picks a random id, as here.
        observationDomainId: fc.observationDomainID ?? randomInt(1, 0xffff_ffff),
        templateRefreshMs: fc.templateRefreshTimeoutMs,
        maxMessageBytes: fc.maxIPFIXMsgSize,
        podLabels: o.config.recordContents.podLabels,
        logger,
      }),
    );
  const fl = o.config.flowLogger;
  if (fl.enable)
    out.push(
      new LogExporter({
        path: fl.path,
        maxSizeMb: fl.maxSize,
        maxBackups: fl.maxBackups,
        compress: fl.compress,
        prettyPrint: fl.prettyPrint,
        filters: fl.filters,
        logger,
      }),
    );
  return out;
}

/** --kubeconfig, else the in-cluster config when running in a Pod (the environment tells), else none. */
function loadKubeConfig(path: string | undefined): KubeConfig | undefined {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else if (process.env['KUBERNETES_SERVICE_HOST']) kc.loadFromCluster();
  else return undefined;
  return kc;
}

async function main(): Promise<void> {
  let options: FlowAggregatorOptions;
  try {
    options = loadOptions(process.argv, process.env);
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    if (typeof code !== 'number') pino({ base: { app: 'flow-aggregator' } }).fatal({ err }, 'bad options');
    process.exitCode = typeof code === 'number' ? code : 2;
    return;
  }
  const logger = pino({ level: options.logLevel, base: { app: 'flow-aggregator' } });
  const c = options.config;
  const kubeConfig = loadKubeConfig(options.kubeconfig);
  const pods = kubeConfig ? new PodInformer(kubeConfig, logger) : undefined;
  if (!pods)
    logger.warn(
      'no kubeconfig and not in a Pod: records go out without Pod metadata from the API, and no gRPC collector (its certificates live in Kubernetes)',
    );
  // As Antrea, the gRPC collector always runs (with the CA and client certificate kept in
  // Kubernetes for the agents); aggregatorTransportProtocol only picks the IPFIX collector.
  if (!kubeConfig && c.aggregatorTransportProtocol === 'tls')
    throw new Error(
      'aggregatorTransportProtocol tls needs the certificates kept in Kubernetes: give --kubeconfig',
    );
  const certificates = kubeConfig
    ? new CertificateProvider({
        kubeConfig,
        namespace: options.namespace,
        ...(c.flowAggregatorAddress ? { extraAddress: c.flowAggregatorAddress } : {}),
        logger,
      })
    : undefined;
  let tls = await certificates?.sync();
  const aggregator = new FlowAggregator({
    host: options.bindAddress,
    port: options.ipfixPort,
    transports: c.aggregatorTransportProtocol === 'none' ? [] : [c.aggregatorTransportProtocol],
    ...(tls ? { tls, grpcPort: options.grpcPort } : {}),
    activeTimeoutMs: c.activeFlowRecordTimeoutMs,
    inactiveTimeoutMs: c.inactiveFlowRecordTimeoutMs,
    exporters: exporters(options, logger),
    ...(pods ? { enrich: (r) => fillPodMetadata(r, pods, c.recordContents.podLabels) } : {}),
    logger,
  });
  const health = new HealthServer({
    host: options.bindAddress,
    port: c.apiServer.apiPort,
    ready: () => aggregator.ready,
    stats: () => aggregator.stats(),
    logger,
  });
  const abort = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => abort.abort());
  await health.start();
  await pods?.start(abort.signal);
  await aggregator.start();
  // As Antrea, the certificates are checked every hour (replaced when under 90 days or invalid);
  // a new CA restarts the TLS collectors.
  const certificateCheck = setInterval(() => {
    void certificates
      ?.sync()
      .then(async (next) => {
        if (next.caPem === tls?.caPem) return;
        tls = next;
        await aggregator.updateTls(next);
      })
      .catch((err: unknown) => logger.warn({ err }, 'checking the certificates failed'));
  }, CERTIFICATE_CHECK_MS);
  await new Promise<void>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  clearInterval(certificateCheck);
  await aggregator.stop();
  await pods?.stop();
  await health.stop();
}

main().catch((err: unknown) => {
  pino({ base: { app: 'flow-aggregator' } }).fatal({ err }, 'flow-aggregator failed');
  process.exitCode = 1;
});
