import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { CertificateSource } from '@antrea-ts/apiserver';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { PodInterface } from '../cniserver/interface-store.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import type { Pipeline } from '../openflow/pipeline.js';
import { type DelegatedAuthOptions, registerDelegatedAuth } from './delegated-auth.js';
import type { AgentMetrics } from './metrics.js';
import { type OvsFlowsSource, registerOvsFlowsRoute } from './ovsflows-route.js';
import { type OvsTracingSource, registerOvsTracingRoute } from './ovstracing-route.js';

/** What the REST API reads; the Agent provides it. */
export interface AgentApiSource extends OvsFlowsSource {
  pods(): PodInterface[];
  agentInfo(): object;
  ready(): boolean;
  readonly sw: FlowSwitch;
  readonly pipeline: Pipeline;
  readonly metrics: AgentMetrics;
  /** Refreshes gauges just before a scrape. */
  refreshMetrics(): void;
  /** `/ovstracing` (antctl trace-packet); none answers 501. */
  readonly tracing?: OvsTracingSource;
}

/** antctl's podinterface response (Antrea pkg/agent/apiserver/handlers/podinterface). */
export function podInterfaceResponse(p: PodInterface): object {
  return {
    name: p.podName,
    podNamespace: p.podNamespace,
    interfaceName: p.hostIfName,
    ips: [p.ip],
    mac: p.mac,
    ofPort: p.ofport,
    containerID: p.containerId,
  };
}

/** How the API is served: its certificate and who may call it. */
export interface AgentApiSecurity {
  readonly certificates: CertificateSource;
  readonly auth: DelegatedAuthOptions;
}

/**
 * Builds (without listening) the agent's HTTPS API: antctl endpoints, health, metrics, behind
 * delegated authentication and authorization. The listener follows certificate rotations.
 */
export function buildRestApi(
  src: AgentApiSource,
  logger: Logger,
  security: AgentApiSecurity,
): FastifyInstance {
  const tlsOptions = () => {
    const { certPem, keyPem } = security.certificates.current();
    return { cert: certPem, key: keyPem };
  };
  let server: HttpsServer | undefined;
  const app = Fastify({
    loggerInstance: logger.child({ component: 'agent-api' }) as FastifyBaseLogger,
    // antctl and probes poll these endpoints: no log line per request.
    logController: new LogController({ disableRequestLogging: true }),
    serverFactory: (handler) => {
      server = createHttpsServer({ ...tlsOptions(), minVersion: 'TLSv1.2' }, handler);
      return server;
    },
  });
  const unsubscribe = security.certificates.onChange(() => server?.setSecureContext(tlsOptions()));
  app.addHook('onClose', async () => unsubscribe());
  registerDelegatedAuth(app, security.auth);
  app.get('/livez', async () => 'ok');
  app.get('/readyz', async (_req, reply) => {
    if (!src.ready()) return reply.code(503).send('not ready');
    return 'ok';
  });
  app.get('/metrics', async (_req, reply) => {
    src.refreshMetrics();
    reply.header('content-type', src.metrics.registry.contentType);
    return src.metrics.registry.metrics();
  });
  app.get<{ Querystring: { name?: string; namespace?: string } }>('/podinterfaces', async (req) => {
    const { name, namespace } = req.query;
    return src
      .pods()
      .filter((p) => (!name || p.podName === name) && (!namespace || p.podNamespace === namespace))
      .map(podInterfaceResponse);
  });
  registerOvsFlowsRoute(app, src);
  if (src.tracing) registerOvsTracingRoute(app, src.tracing);
  else
    app.get('/ovstracing', async (_req, reply) =>
      reply.code(501).send({ error: 'OVS tracing is not available on this agent' }),
    );
  app.get('/agentinfo', async () => src.agentInfo());
  return app;
}
