// flow-aggregator: Antrea's Flow Aggregator as a process. A composition root only: it reads
// flow-aggregator.conf, builds the exporters the config enables, the aggregator and its health
// endpoints, and links SIGTERM/SIGINT to one AbortController.
import { randomInt } from 'node:crypto';
import {
  FlowAggregator,
  type FlowRecordExporter,
  HealthServer,
  IpfixFlowExporter,
  LogExporter,
} from '@antrea-ts/flow-aggregator';
import { type Logger, pino } from 'pino';
import { type FlowAggregatorOptions, loadOptions } from './options.js';

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

async function main(): Promise<void> {
  let options: FlowAggregatorOptions;
  try {
    options = loadOptions(process.argv);
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    if (typeof code !== 'number') pino({ base: { app: 'flow-aggregator' } }).fatal({ err }, 'bad options');
    process.exitCode = typeof code === 'number' ? code : 2;
    return;
  }
  const logger = pino({ level: options.logLevel, base: { app: 'flow-aggregator' } });
  const c = options.config;
  const aggregator = new FlowAggregator({
    host: options.bindAddress,
    port: options.ipfixPort,
    transports: c.aggregatorTransportProtocol === 'none' ? [] : [c.aggregatorTransportProtocol],
    activeTimeoutMs: c.activeFlowRecordTimeoutMs,
    inactiveTimeoutMs: c.inactiveFlowRecordTimeoutMs,
    exporters: exporters(options, logger),
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
  await aggregator.start();
  await new Promise<void>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  await aggregator.stop();
  await health.stop();
}

main().catch((err: unknown) => {
  pino({ base: { app: 'flow-aggregator' } }).fatal({ err }, 'flow-aggregator failed');
  process.exitCode = 1;
});
