import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { type Clock, type IdSource, randomIds, systemClock } from './clock.js';
import type { SimContext } from './context.js';
import {
  type AuthOptions,
  type ClientCertificateSource,
  installAuth,
  tlsClientCertificate,
} from './http/auth.js';
import { installErrorHandler, installJsonParser } from './http/error-handler.js';
import { RequestJournal } from './http/journal.js';
import { ALL_KINDS } from './policy/kinds.js';
import { PolicyTree } from './policy/policy-tree.js';
import { registerClusterControlPlaneRoutes } from './routes/cluster-control-planes.js';
import { registerGroupMemberRoutes } from './routes/group-members.js';
import { registerHierarchicalRoutes } from './routes/hierarchical.js';
import { registerInventoryRoutes } from './routes/inventory.js';
import { registerPolicyFeedRoutes } from './routes/policy-feed.js';
import { registerPolicyInfraRoutes } from './routes/policy-infra.js';
import { registerPrincipalIdentityRoutes } from './routes/principal-identities.js';
import { registerRealizationRoutes } from './routes/realization.js';
import { registerReviseRoutes } from './routes/revise.js';
import { registerSimAdminRoutes } from './routes/sim-admin.js';
import { registerStatisticsRoutes } from './routes/statistics.js';
import { registerSupportBundleRoutes } from './routes/support-bundles.js';
import { registerTraceflowRoutes } from './routes/traceflows.js';
import { loadDemo } from './seed/demo.js';
import { ensureSystemObjects } from './seed/system-objects.js';
import type { SimStore } from './state/sim-store.js';

export interface TlsMaterial {
  key: string | Buffer;
  cert: string | Buffer;
  /** CA that signed client certificates (PI certs are self-signed; the sim asks but does not verify). */
  ca?: string | Buffer;
}

export interface NsxSimAppOptions {
  logger: Logger;
  store: SimStore;
  clock?: Clock;
  ids?: IdSource;
  /** false: every request is "admin". Default: admin/Admin!23Admin basic auth or PI client cert. */
  auth?: AuthOptions | false;
  /** Where client certificates come from (default: the TLS socket). Tests can inject one. */
  clientCertificate?: ClientCertificateSource;
  tls?: TlsMaterial;
  /** Load the demo objects when the state is fresh. */
  seed?: boolean;
  /** Max JSON body (default 16 MiB) and max support-bundle archive (default 64 MiB). */
  bodyLimit?: number;
  maxArchiveBytes?: number;
}

export const DEFAULT_ADMIN: AuthOptions = { adminUser: 'admin', adminPassword: 'Admin!23Admin' };

/**
 * Builds the simulator's fastify app without listening (tests use `inject()`). The store must be
 * loaded already; system objects (default domain, predefined services) are created when missing.
 */
export async function buildNsxSimApp(opts: NsxSimAppOptions): Promise<FastifyInstance> {
  const logger = opts.logger.child({ component: 'nsx-sim' });
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? randomIds;
  const tree = new PolicyTree({ store: opts.store, clock, ids });
  for (const k of ALL_KINDS) tree.registerKind(k);
  const ctx: SimContext = {
    store: opts.store,
    tree,
    clock,
    ids,
    logger,
    maxArchiveBytes: opts.maxArchiveBytes ?? 64 * 1024 * 1024,
  };

  const fresh = Object.keys(opts.store.state.policy).length === 0;
  ensureSystemObjects(tree);
  if (fresh && opts.seed) loadDemo(tree, 'admin');

  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 16 * 1024 * 1024,
    ajv: { customOptions: { allErrors: true, strict: false } },
    ...(opts.tls
      ? {
          https: {
            key: opts.tls.key,
            cert: opts.tls.cert,
            ...(opts.tls.ca ? { ca: opts.tls.ca } : {}),
            requestCert: true,
            rejectUnauthorized: false,
          },
        }
      : {}),
  }) as unknown as FastifyInstance;

  installErrorHandler(app, logger);
  installJsonParser(app);
  installAuth(app, opts.store, opts.auth ?? DEFAULT_ADMIN, opts.clientCertificate ?? tlsClientCertificate);
  const journal = new RequestJournal(clock);
  journal.install(app);

  registerPolicyInfraRoutes(app, ctx);
  registerHierarchicalRoutes(app, ctx);
  registerGroupMemberRoutes(app, ctx);
  registerReviseRoutes(app, ctx);
  registerClusterControlPlaneRoutes(app, ctx);
  registerPrincipalIdentityRoutes(app, ctx);
  registerInventoryRoutes(app, ctx);
  registerTraceflowRoutes(app, ctx);
  registerStatisticsRoutes(app, ctx);
  registerRealizationRoutes(app, ctx);
  registerSupportBundleRoutes(app, ctx);
  registerPolicyFeedRoutes(app, ctx);
  registerSimAdminRoutes(app, ctx, journal);

  app.addHook('onClose', async () => {
    await opts.store.flush().catch((err: unknown) => logger.error({ err }, 'final state save failed'));
  });
  await app.ready();
  return app;
}

export interface NsxSimServerOptions extends NsxSimAppOptions {
  host?: string;
  port: number;
}

/** Long-lived wrapper: `start(signal)` loads state and listens, `stop()` closes and flushes. */
export class NsxSimServer {
  private app: FastifyInstance | undefined;
  private stopping: Promise<void> | undefined;
  private readonly log: Logger;

  constructor(private readonly opts: NsxSimServerOptions) {
    this.log = opts.logger.child({ component: 'nsx-sim-server' });
  }

  /** Returns the listening URL. */
  async start(signal?: AbortSignal): Promise<string> {
    await this.opts.store.load();
    this.app = await buildNsxSimApp(this.opts);
    const url = await this.app.listen({ host: this.opts.host ?? '127.0.0.1', port: this.opts.port });
    this.log.info({ url, tls: Boolean(this.opts.tls) }, 'NSX simulator listening');
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    return url;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.app?.close();
      this.log.info('NSX simulator stopped');
    })();
    return this.stopping;
  }
}
