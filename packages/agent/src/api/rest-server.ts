import { formatFlow } from '@antrea-ts/openflow';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { PodInterface } from '../cniserver/interface-store.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import type { Pipeline } from '../openflow/pipeline.js';
import type { AgentMetrics } from './metrics.js';

/** What the REST API reads; the Agent provides it. */
export interface AgentApiSource {
  pods(): PodInterface[];
  agentInfo(): object;
  ready(): boolean;
  readonly sw: FlowSwitch;
  readonly pipeline: Pipeline;
  readonly metrics: AgentMetrics;
  /** Refreshes gauges just before a scrape. */
  refreshMetrics(): void;
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

/** Builds (without listening) the agent's local HTTP API: antctl endpoints, health, metrics. */
export function buildRestApi(src: AgentApiSource, logger: Logger): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger.child({ component: 'agent-api' }) as FastifyBaseLogger,
    // antctl and probes poll these endpoints: no log line per request.
    logController: new LogController({ disableRequestLogging: true }),
  });
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
  app.get<{ Querystring: { table?: string } }>('/ovsflows', async (req, reply) => {
    let table: number | undefined;
    if (req.query.table !== undefined) {
      const t = req.query.table;
      table = /^\d+$/.test(t)
        ? Number(t)
        : src.pipeline.has(t as never)
          ? src.pipeline.id(t as never)
          : undefined;
      if (table === undefined) return reply.code(400).send({ error: `unknown table ${t}` });
    }
    const flows = await src.sw.dumpFlows(table === undefined ? {} : { table });
    return flows.map((f) => ({ flow: formatFlow(f, { stats: true }) }));
  });
  app.get('/agentinfo', async () => src.agentInfo());
  return app;
}
