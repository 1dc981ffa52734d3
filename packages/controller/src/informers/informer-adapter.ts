import type { Logger } from 'pino';
import type { PolicyEngine } from '../compute/engine.js';
import type { InformerLike, PolicyInformers } from './informers.js';

interface Named {
  metadata?: { name?: string; namespace?: string };
}

/**
 * Feeds informer events into the compute core and schedules one flush per burst of events (the
 * initial list of every informer arrives as one burst). Thin on purpose: all logic is in the
 * engine.
 */
export class InformerAdapter {
  private readonly log: Logger;
  private flushScheduled = false;
  private started = false;

  constructor(
    private readonly engine: PolicyEngine,
    private readonly informers: PolicyInformers,
    logger: Logger,
    /** Called after each flush (the controller uses it for metrics and readiness). */
    private readonly onFlush: () => void = () => {},
  ) {
    this.log = logger.child({ component: 'informer-adapter' });
  }

  private wire<T extends Named>(
    name: string,
    inf: InformerLike<T> | undefined,
    upsert: (o: T) => void,
    remove: (ns: string, name: string) => void,
  ): void {
    if (!inf) return;
    const up = (o: T) => {
      upsert(o);
      this.scheduleFlush();
    };
    inf.on('add', up);
    inf.on('update', up);
    inf.on('delete', (o: T) => {
      remove(o.metadata?.namespace ?? '', o.metadata?.name ?? '');
      this.scheduleFlush();
    });
    // client-node stops an informer on error; restart it after a pause (the relist replays all).
    inf.on('error', (err?: unknown) => {
      if (!this.started) return;
      this.log.warn({ err, informer: name }, 'informer failed; restarting in 1s');
      setTimeout(() => {
        if (this.started)
          inf
            .start()
            .catch((e: unknown) => this.log.error({ err: e, informer: name }, 'informer restart failed'));
      }, 1000).unref();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const stats = this.engine.flush();
      this.log.debug(stats, 'flushed');
      this.onFlush();
    });
  }

  /** Starts every informer; resolves once each has listed (the engine is then flushed). */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.started) return;
    this.started = true;
    const e = this.engine;
    const i = this.informers;
    this.wire(
      'namespaces',
      i.namespaces,
      (o) => e.upsertNamespace(o),
      (_, n) => e.deleteNamespace(n),
    );
    this.wire(
      'pods',
      i.pods,
      (o) => e.upsertPod(o),
      (ns, n) => e.deletePod(ns, n),
    );
    this.wire(
      'externalentities',
      i.externalEntities,
      (o) => e.upsertExternalEntity(o),
      (ns, n) => e.deleteExternalEntity(ns, n),
    );
    this.wire(
      'nodes',
      i.nodes,
      (o) => e.upsertNode(o),
      (_, n) => e.deleteNode(n),
    );
    this.wire(
      'services',
      i.services,
      (o) => e.upsertService(o),
      (ns, n) => e.deleteService(ns, n),
    );
    this.wire(
      'networkpolicies',
      i.networkPolicies,
      (o) => e.upsertK8sNetworkPolicy(o),
      (ns, n) => e.deleteK8sNetworkPolicy(ns, n),
    );
    this.wire(
      'tiers',
      i.tiers,
      (o) => e.upsertTier(o),
      (_, n) => e.deleteTier(n),
    );
    this.wire(
      'clustergroups',
      i.clusterGroups,
      (o) => e.upsertClusterGroup(o),
      (_, n) => e.deleteClusterGroup(n),
    );
    this.wire(
      'groups',
      i.groups,
      (o) => e.upsertGroup(o),
      (ns, n) => e.deleteGroup(ns, n),
    );
    this.wire(
      'clusternetworkpolicies',
      i.clusterNetworkPolicies,
      (o) => e.upsertClusterNetworkPolicy(o),
      (_, n) => e.deleteClusterNetworkPolicy(n),
    );
    this.wire(
      'antreanetworkpolicies',
      i.antreaNetworkPolicies,
      (o) => e.upsertAntreaNetworkPolicy(o),
      (ns, n) => e.deleteAntreaNetworkPolicy(ns, n),
    );
    this.wire(
      'adminnetworkpolicies',
      i.adminNetworkPolicies,
      (o) => e.upsertAdminNetworkPolicy(o),
      (_, n) => e.deleteAdminNetworkPolicy(n),
    );
    this.wire(
      'baselineadminnetworkpolicies',
      i.baselineAdminNetworkPolicies,
      (o) => e.upsertBaselineAdminNetworkPolicy(o),
      (_, n) => e.deleteBaselineAdminNetworkPolicy(n),
    );
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await Promise.all(Object.values(i).map((inf: InformerLike<unknown>) => inf.start()));
    // Everything listed so far is computed before start() resolves.
    this.flushScheduled = false;
    this.engine.flush();
    this.onFlush();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await Promise.all(Object.values(this.informers).map((inf: InformerLike<unknown>) => inf.stop()));
  }
}
