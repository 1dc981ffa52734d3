// antrea-agent: composition root. Builds the real clients (OVSDB, OpenFlow, kube-apiserver, host
// commands), hands them to Agent, and links SIGTERM/SIGINT to one AbortController.
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  Http2ControllerConnection,
  InformerNodeSource,
  InformerNplSource,
  InformerServiceSource,
  KubeAgentInfoWriter,
  KubeEgressSource,
  KubeNplAnnotator,
  KubePacketCaptureApi,
  KubeServiceExternalIPSource,
  KubeTraceflowApi,
  KubeTrafficControlSource,
  kubeAggregatorTls,
  kubeClusterLookup,
  LogLevelControl,
  netnsPathExists,
  OfConnection,
  ofprotoTracer,
  overrideServer,
  ovsConntrackDump,
  portNoFlood,
  ShellCommandRunner,
  TcpdumpCapturer,
  vswitchdAppctl,
} from '@antrea-ts/agent';
import { CT_ZONE, LogRing } from '@antrea-ts/apis';
import { KubeAccessReviewer, KubeTokenReviewer } from '@antrea-ts/apiserver';
import { OvsBridgeClient, OvsdbRpcClient } from '@antrea-ts/ovsdb';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadOptions } from './options.js';

async function main(): Promise<number> {
  const options = loadOptions(process.argv, process.env);
  // Logs go to stdout and to an in-memory ring for support bundles; /loglevel changes every logger.
  const logRing = new LogRing();
  const logLevel = new LogLevelControl();
  const logger = pino(
    { level: options.logLevel, onChild: logLevel.onChild },
    pino.multistream([
      { level: 'trace', stream: process.stdout },
      { level: 'trace', stream: logRing },
    ]),
  );
  logLevel.track(logger);
  const kubeConfig = new KubeConfig();
  if (options.kubeconfig) kubeConfig.loadFromFile(options.kubeconfig);
  else kubeConfig.loadFromDefault();
  if (options.kubeAPIServerOverride) overrideServer(kubeConfig, options.kubeAPIServerOverride);

  const controller = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => controller.abort());

  const ovsdb = new OvsdbRpcClient({ endpoint: `unix:${join(options.ovsRunDir, 'db.sock')}`, logger });
  await ovsdb.start(controller.signal, { timeoutMs: 30_000 });
  const of = new OfConnection({
    socketPath: join(options.ovsRunDir, `${options.agent.bridgeName}.mgmt`),
    logger,
  });
  of.start(controller.signal);
  // antrea-controller through the kube-system/antrea Service (its environment variables, as in a
  // Pod); its CA comes from ConfigMap antrea-ca, read again for every new connection.
  const svcHost = process.env['ANTREA_SERVICE_HOST'];
  const policyConnection = svcHost
    ? new Http2ControllerConnection({
        url: `https://${svcHost.includes(':') ? `[${svcHost}]` : svcHost}:${process.env['ANTREA_SERVICE_PORT'] ?? '10349'}`,
        servername: 'antrea.kube-system.svc',
        ca: async () => {
          const cm = await kubeConfig
            .makeApiClient(CoreV1Api)
            .readNamespacedConfigMap({ name: 'antrea-ca', namespace: 'kube-system' });
          return cm.data?.['ca.crt'] ?? '';
        },
        token: async () =>
          kubeConfig.getCurrentUser()?.token ??
          (await readFile('/var/run/secrets/kubernetes.io/serviceaccount/token', 'utf8')).trim(),
      })
    : undefined;
  // Packet-ins (Reject replies, Traceflow) and packet-outs use the same OpenFlow session as flows.
  const packetIn = of.bridge;
  // The NetworkPolicy audit log of rules with enableLogging (Antrea's np.log); opened on first use.
  let auditStream: ReturnType<typeof createWriteStream> | undefined;
  const policyAuditLog = (line: string) => {
    if (!auditStream) {
      mkdirSync(options.policyAuditLogDir, { recursive: true });
      auditStream = createWriteStream(join(options.policyAuditLogDir, 'np.log'), { flags: 'a' });
      auditStream.on('error', (err) => logger.warn({ err }, 'NetworkPolicy audit log not writable'));
    }
    auditStream.write(`${line}\n`);
  };
  // Host commands go through one long-lived shell: forking the agent itself per command is costly.
  const runner = new ShellCommandRunner();
  // ovs-appctl to this Node's ovs-vswitchd: conntrack reads of the flow exporter and the metrics.
  const datapathAppctl = vswitchdAppctl(runner, options.ovsRunDir);
  const agent = new Agent({
    config: options.agent,
    logger,
    bridges: new OvsBridgeClient(ovsdb, { logger }),
    ovsdb,
    ovsdbConnected: () => ovsdb.isConnected,
    sw: of,
    nodeRunner: runner,
    pluginRunner: runner,
    nodes: new InformerNodeSource(kubeConfig, logger),
    services: new InformerServiceSource(kubeConfig, logger),
    egressSource: new KubeEgressSource(kubeConfig, logger),
    serviceExternalIPSource: new KubeServiceExternalIPSource(kubeConfig, logger),
    trafficControlSource: new KubeTrafficControlSource(kubeConfig, options.agent.nodeName, logger),
    trafficControlNoFlood: portNoFlood(runner, options.agent.bridgeName, options.ovsRunDir),
    nodePortLocal: {
      source: new InformerNplSource(kubeConfig, options.agent.nodeName, logger),
      annotator: new KubeNplAnnotator(kubeConfig),
    },
    agentInfoWriter: new KubeAgentInfoWriter(kubeConfig),
    // Callers of the agent API are checked by kube-apiserver, as Antrea's delegating authn/authz.
    apiReviewers: {
      tokenReviewer: new KubeTokenReviewer(kubeConfig),
      accessReviewer: new KubeAccessReviewer(kubeConfig),
    },
    randomBytes,
    netnsExists: netnsPathExists,
    ...(policyConnection ? { policyConnection } : {}),
    packetIn,
    policyAuditLog,
    traceflowApi: new KubeTraceflowApi(kubeConfig, logger),
    // PacketCapture (featureGates.PacketCapture): Antrea's file directory and, as in its Pod, the
    // Secret in the agent's Namespace and the Pod name in status.filePath.
    packetCapture: {
      api: new KubePacketCaptureApi(kubeConfig, process.env['POD_NAMESPACE'] ?? 'kube-system', logger),
      capturer: new TcpdumpCapturer(),
      directory: join(tmpdir(), 'antrea', 'packetcapture', 'packets'),
      agentPodName: process.env['POD_NAME'] ?? `antrea-agent-${options.agent.nodeName}`,
    },
    traceFlow: ofprotoTracer(runner, options.agent.bridgeName, options.ovsRunDir),
    conntrackDump: ovsConntrackDump(datapathAppctl, CT_ZONE),
    datapathAppctl,
    clusterLookup: kubeClusterLookup(kubeConfig),
    flowAggregatorTls: kubeAggregatorTls(kubeConfig),
    logLevel,
    supportBundle: {
      logs: logRing,
      logDirs: [options.policyAuditLogDir, ...options.bundleLogDirs],
      ...(options.configFile ? { configText: await readFile(options.configFile, 'utf8') } : {}),
      // The agent's own credentials: whatever shape they have, their values never reach a bundle.
      secrets: async () => {
        const user = kubeConfig.getCurrentUser();
        const saToken = await readFile('/var/run/secrets/kubernetes.io/serviceaccount/token', 'utf8').catch(
          () => '',
        );
        return [user?.token, user?.password, user?.keyData, saToken].filter((s): s is string => !!s);
      },
    },
  });
  try {
    await agent.start(controller.signal);
  } catch (err) {
    logger.fatal({ err }, 'agent failed to start');
    await agent.stop();
    await of.stop();
    await ovsdb.stop();
    runner.stop();
    return 1;
  }
  await new Promise<void>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  logger.info('stopping');
  await agent.stop();
  await packetIn.stop();
  auditStream?.end();
  await of.stop();
  await ovsdb.stop();
  runner.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // commander has printed --help / --version itself.
    if ((err as { code?: string }).code === 'commander.helpDisplayed') process.exit(0);
    // Option errors and the like, before a logger exists.
    process.stderr.write(`antrea-agent: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
