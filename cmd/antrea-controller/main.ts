// antrea-controller: composition root. Loads options, builds the kube client configuration and
// AntreaController (informers -> compute -> stores -> API server, NodeIPAM, monitoring), and
// links SIGTERM/SIGINT to one AbortController.

import { LogRing } from '@antrea-ts/apis';
import { AntreaController, KubeTraceflowStore, TraceflowController } from '@antrea-ts/controller';
import { Dashboard, KubeClusterReader } from '@antrea-ts/dashboard';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadOptions } from './options.js';

async function main(): Promise<number> {
  const options = loadOptions(process.argv, process.env);
  // Logs go to stdout and to an in-memory ring that support bundles read.
  const logRing = new LogRing();
  const logger = pino(
    { level: options.logLevel },
    pino.multistream([
      { level: 'trace', stream: process.stdout },
      { level: 'trace', stream: logRing },
    ]),
  );
  const kubeConfig = new KubeConfig();
  if (options.kubeconfig) kubeConfig.loadFromFile(options.kubeconfig);
  else kubeConfig.loadFromDefault();
  // The controller's own credentials never reach a support bundle, whatever their shape.
  const secrets = async () => {
    const user = kubeConfig.getCurrentUser();
    return [user?.token, user?.password, user?.keyData].filter((s): s is string => !!s);
  };

  const abort = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => abort.abort());

  const controller = new AntreaController(options.controller, {
    logger,
    kubeConfig,
    supportBundle: { logs: logRing, secrets },
  });
  const dashboard = options.dashboard
    ? new Dashboard(options.dashboard, { logger, cluster: new KubeClusterReader(kubeConfig), controller })
    : undefined;
  try {
    await controller.start(abort.signal);
    await dashboard?.start(abort.signal);
  } catch (err) {
    logger.fatal({ err }, 'controller failed to start');
    await dashboard?.stop();
    await controller.stop();
    return 1;
  }
  // Traceflow (a feature gate on by default in Antrea): tags, phases and timeouts of Traceflow CRs.
  const traceflows = new TraceflowController({ store: new KubeTraceflowStore(kubeConfig, logger), logger });
  await traceflows.start().catch((err: unknown) => logger.warn({ err }, 'Traceflow controller not started'));
  if (!abort.signal.aborted) {
    await new Promise<void>((resolve) =>
      abort.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  }
  logger.info('stopping');
  await traceflows.stop();
  await dashboard?.stop();
  await controller.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const code = (err as { code?: string }).code;
    // commander has printed --help / --version itself.
    if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
    // Option errors and the like, before a logger exists.
    process.stderr.write(`antrea-controller: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
