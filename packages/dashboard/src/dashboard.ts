import type { AntreaControllerInfo } from '@antrea-ts/apis';
import { STATS_RESOURCES, type StatsResource } from '@antrea-ts/controller';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { ClusterReader } from './cluster-reader.js';
import { DashboardError, ErrorCodes } from './errors.js';
import { DEFAULT_STALE_AFTER_MS, type HealthState, summarizeAgent, summarizeController } from './health.js';
import { type PolicyQuery, selectPolicies } from './policy-filter.js';
import { type PolicyStatsLike, policyRows } from './policy-rows.js';
import { type TraceflowForm, traceflowFromForm } from './traceflow-form.js';
import { healthPage } from './views/health-page.js';
import { errorPage } from './views/layout.js';
import { policiesPage } from './views/policies-page.js';
import { traceflowListPage, traceflowPage } from './views/traceflow-page.js';

/** What the dashboard reads from the running controller, in-process (AntreaController fits). */
export interface DashboardControllerView {
  readonly controllerInfo: { current(): AntreaControllerInfo };
  /** The stats aggregator behind stats.antrea.io. */
  readonly stats: { list(res: StatsResource, namespace: string): { [field: string]: unknown } };
  /** The internal NetworkPolicy store: each policy's span, by source UID. */
  readonly networkPolicies: {
    list(): { items: readonly { object: { sourceRef: { uid?: string }; span: ReadonlySet<string> } }[] };
  };
  readonly api: { connectedNodes(): Set<string> };
}

export interface DashboardOptions {
  /** Default 127.0.0.1: the dashboard has no authentication of its own (see README). */
  host?: string;
  port: number;
  /** How often the health and policy pages refresh themselves. Default 5 s. */
  refreshMs?: number;
  /** How often a running Traceflow's page refreshes. Default 1 s. */
  traceflowRefreshMs?: number;
  staleAfterMs?: number;
}

export interface DashboardDeps {
  logger: Logger;
  cluster: ClusterReader;
  controller: DashboardControllerView;
  /** Wall-clock milliseconds (heartbeat ages). */
  now?: () => number;
}

const HTML = 'text/html; charset=utf-8';

const SEVERITY: Record<HealthState, number> = { Stale: 0, Unknown: 1, Degraded: 2, Healthy: 3 };

/**
 * The controller's web dashboard: cluster health (controller and agents), policies with their
 * realization status and rule stats, and Traceflows run from a form. Server-rendered pages that
 * refresh themselves with a few lines of vanilla JS.
 */
export class Dashboard {
  readonly app: FastifyInstance;
  readonly #opts: DashboardOptions;
  readonly #deps: DashboardDeps;
  readonly #log: Logger;
  readonly #now: () => number;
  #listening = false;

  constructor(opts: DashboardOptions, deps: DashboardDeps) {
    this.#opts = opts;
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'dashboard' });
    this.#now = deps.now ?? Date.now;
    this.app = Fastify({
      loggerInstance: this.#log as FastifyBaseLogger,
      // Pages poll themselves: no log line per request.
      logController: new LogController({ disableRequestLogging: true }),
    });
    this.#routes();
  }

  #routes(): void {
    const app = this.app;
    const refreshMs = this.#opts.refreshMs ?? 5000;
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    app.setErrorHandler((err, _req, reply) => {
      const status = DashboardError.is(err)
        ? err.code === ErrorCodes.FORBIDDEN_ORIGIN
          ? 403
          : 502
        : ((err as { statusCode?: number }).statusCode ?? 500);
      if (status >= 500) this.#log.warn({ err }, 'dashboard request failed');
      return reply
        .code(status)
        .type(HTML)
        .send(errorPage('Error', (err as Error).message));
    });

    app.get('/healthz', async () => 'ok');
    app.get('/', async (_req, reply) =>
      reply.type(HTML).send(healthPage(...(await this.#health()), refreshMs)),
    );
    app.get<{ Querystring: PolicyQuery }>('/policies', async (req, reply) =>
      reply.type(HTML).send(policiesPage(selectPolicies(await this.#policies(), req.query), refreshMs)),
    );
    app.get('/traceflow', async (_req, reply) =>
      reply.type(HTML).send(traceflowListPage(await this.#deps.cluster.traceflows())),
    );
    app.post<{ Body: TraceflowForm }>('/traceflow', async (req, reply) => {
      checkSameOrigin(req);
      const form = req.body ?? {};
      let created: string;
      try {
        const tf = await this.#deps.cluster.createTraceflow(traceflowFromForm(form));
        created = tf.metadata.name ?? '';
      } catch (err) {
        if (!DashboardError.is(err)) throw err;
        // Shown beside the form with what was typed, so it can be corrected.
        const traceflows = await this.#deps.cluster.traceflows().catch(() => []);
        return reply
          .code(400)
          .type(HTML)
          .send(traceflowListPage(traceflows, { form, error: err.message }));
      }
      this.#log.info({ traceflow: created }, 'Traceflow created from the dashboard');
      return reply.redirect(`/traceflow/${encodeURIComponent(created)}`, 303);
    });
    app.get<{ Params: { name: string } }>('/traceflow/:name', async (req, reply) => {
      const tf = await this.#deps.cluster.traceflow(req.params.name);
      if (!tf) {
        const message = `Traceflow ${req.params.name} does not exist.`;
        return reply.code(404).type(HTML).send(errorPage('Not found', message));
      }
      return reply.type(HTML).send(traceflowPage(tf, this.#opts.traceflowRefreshMs ?? 1000));
    });
  }

  async #health() {
    const nowMs = this.#now();
    const staleAfterMs = this.#opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    const c = this.#deps.controller;
    const connectedNodes = c.api.connectedNodes();
    const infos = await this.#deps.cluster.agentInfos();
    const agents = infos
      .map((i) => summarizeAgent(i, { nowMs, staleAfterMs, connectedNodes }))
      // Problems first: in a large cluster the agents that need attention lead the table.
      .sort((a, b) => SEVERITY[a.state] - SEVERITY[b.state] || a.node.localeCompare(b.node));
    return [summarizeController(c.controllerInfo.current(), { nowMs, staleAfterMs }), agents] as const;
  }

  async #policies() {
    const { cluster, controller } = this.#deps;
    const [k8s, clusterPolicies, namespacedPolicies] = await Promise.all([
      cluster.k8sNetworkPolicies(),
      cluster.clusterNetworkPolicies(),
      cluster.antreaNetworkPolicies(),
    ]);
    const spans = new Map<string, number>();
    for (const { object } of controller.networkPolicies.list().items) {
      if (object.sourceRef.uid) spans.set(object.sourceRef.uid, object.span.size);
    }
    const stats = STATS_RESOURCES.flatMap(
      (r) => (controller.stats.list(r, '')['items'] ?? []) as PolicyStatsLike[],
    );
    return policyRows({ k8s, clusterPolicies, namespacedPolicies, stats, spans });
  }

  /** Bound address once started. */
  get address(): { host: string; port: number } {
    const a = this.app.server.address();
    if (!a || typeof a === 'string') throw new Error('dashboard not listening');
    return { host: a.address, port: a.port };
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.#listening) return;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.app.listen({ host: this.#opts.host ?? '127.0.0.1', port: this.#opts.port });
    this.#listening = true;
    this.#log.info(this.address, 'dashboard listening');
  }

  /** Idempotent. */
  async stop(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    await this.app.close();
  }
}

/**
 * Refuses a form posted from another site (a page elsewhere making the browser post to a dashboard
 * on localhost): browsers send Origin or Sec-Fetch-Site with every cross-site POST.
 */
function checkSameOrigin(req: FastifyRequest): void {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  let sameHost = true;
  if (origin !== undefined) {
    try {
      // Both through URL, which drops a scheme's default port from either.
      const o = new URL(origin);
      sameHost = o.host === new URL(`${o.protocol}//${req.headers.host ?? ''}`).host;
    } catch {
      sameHost = false;
    }
  }
  if (!sameHost || site === 'cross-site' || site === 'same-site') {
    throw new DashboardError(ErrorCodes.FORBIDDEN_ORIGIN, 'cross-site form posts are refused');
  }
}
