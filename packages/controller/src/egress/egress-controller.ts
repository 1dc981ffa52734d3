import type {
  CrdCondition,
  Egress,
  EgressConditionType,
  EgressStatus,
  ExternalIPPool,
} from '@antrea-ts/apis';
import { EGRESS_CONDITION_REASONS, SyncLoop, withEgressCondition } from '@antrea-ts/apis';
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { InformerLike } from '../informers/informers.js';
import type { RamStore } from '../store/ram-store.js';
import { type PoolUsage, planAllocations } from './allocation-plan.js';
import { computeEgressGroup, type InternalEgressGroup, sameEgressGroup } from './egress-group.js';

/** Writes to kube-apiserver; failures are retried by the next sync. */
export interface EgressWriter {
  /** spec.egressIP of an Egress, where Antrea keeps a pool allocation. */
  setEgressIP(egress: Egress, ip: string): Promise<void>;
  setEgressStatus(egress: Egress, status: EgressStatus): Promise<void>;
  setPoolUsage(pool: ExternalIPPool, usage: PoolUsage): Promise<void>;
}

export interface EgressInformers {
  egresses: InformerLike<Egress>;
  externalIPPools: InformerLike<ExternalIPPool>;
  pods: InformerLike<V1Pod>;
  namespaces: InformerLike<V1Namespace>;
  /**
   * The Pod and Namespace informers are the policy computation's, started (listed) and stopped by
   * it before this controller starts: one watch of every Pod per controller, not two.
   */
  sharedPodInformers?: boolean;
}

export interface EgressControllerOptions {
  informers: EgressInformers;
  writer: EgressWriter;
  groups: RamStore<InternalEgressGroup>;
  logger: Logger;
  clock: Clock;
  /** Delay before retrying after a failed write, ms. */
  retryMs?: number;
}

const keyOf = (o: { metadata?: { name?: string; namespace?: string } }) =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Only what EgressGroups need of a Pod: the cache holds every Pod of the cluster. */
function slimPod(pod: V1Pod): V1Pod {
  return {
    metadata: {
      ...(pod.metadata?.name !== undefined ? { name: pod.metadata.name } : {}),
      ...(pod.metadata?.namespace !== undefined ? { namespace: pod.metadata.namespace } : {}),
      ...(pod.metadata?.labels ? { labels: pod.metadata.labels } : {}),
    },
    spec: {
      containers: [],
      ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
      ...(pod.spec?.hostNetwork ? { hostNetwork: true } : {}),
    },
    status: {
      ...(pod.status?.phase ? { phase: pod.status.phase } : {}),
      ...(pod.status?.podIP ? { podIP: pod.status.podIP } : {}),
      ...(pod.status?.podIPs ? { podIPs: pod.status.podIPs } : {}),
    },
  };
}

/** A cache fed by one informer's events (optionally keeping a reduced copy of each object). */
function follow<T extends { metadata?: { name?: string; namespace?: string } }>(
  informer: InformerLike<T>,
  cache: Map<string, T>,
  changed: () => void,
  keep: (o: T) => T = (o) => o,
): void {
  informer.on('add', (o) => {
    cache.set(keyOf(o), keep(o));
    changed();
  });
  informer.on('update', (o) => {
    cache.set(keyOf(o), keep(o));
    changed();
  });
  informer.on('delete', (o) => {
    cache.delete(keyOf(o));
    changed();
  });
}

/**
 * antrea-controller's Egress side (Antrea's pkg/controller/egress and externalippool): allocates
 * pool IPs to Egresses that have a pool and no egressIP, writes the IPAllocated condition and each
 * pool's usage, and keeps one EgressGroup per Egress in `groups` for the API server to serve.
 * Every sync recomputes all of it from the informers' caches (the state is small: a handful of
 * Egresses); syncs are serialized and coalesced.
 */
export class EgressController {
  readonly #opts: EgressControllerOptions;
  readonly #log: Logger;
  readonly #egresses = new Map<string, Egress>();
  readonly #pools = new Map<string, ExternalIPPool>();
  readonly #pods = new Map<string, V1Pod>();
  readonly #namespaces = new Map<string, V1Namespace>();
  /** IPs written to an Egress's spec and not yet seen back from the informer. */
  readonly #pending = new Map<string, string>();
  #started = false;
  readonly #loop: SyncLoop;

  constructor(opts: EgressControllerOptions) {
    this.#opts = opts;
    this.#log = opts.logger.child({ component: 'egress-controller' });
    this.#loop = new SyncLoop({
      sync: () => this.#sync(),
      onError: (err) => this.#log.warn({ err }, 'Egress sync failed; retrying'),
      ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    });
    const changed = () => this.#loop.schedule();
    const inf = opts.informers;
    follow(inf.egresses, this.#egresses, changed);
    follow(inf.externalIPPools, this.#pools, changed);
    follow(inf.pods, this.#pods, changed, slimPod);
    follow(inf.namespaces, this.#namespaces, changed);
    // client-node informers stop on a failed list or watch (e.g. the CRDs not installed yet).
    for (const informer of [inf.egresses, inf.externalIPPools, inf.pods, inf.namespaces]) {
      informer.on('error', (err) => {
        if (!this.#started) return;
        this.#log.warn({ err: String(err) }, 'Egress informer failed; restarting');
        setTimeout(() => {
          if (this.#started) void informer.start().catch(() => undefined);
        }, this.#opts.retryMs ?? 1000);
      });
    }
  }

  /** Lists everything, then syncs once; resolves after that first sync. */
  async start(): Promise<void> {
    await Promise.all(this.#ownInformers().map((i) => i.start()));
    this.#started = true;
    this.#loop.start();
    await this.#loop.idle();
  }

  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all(this.#ownInformers().map((i) => i.stop()));
    await this.#loop.stop();
  }

  /** The informers this controller starts and stops itself. */
  #ownInformers(): Array<InformerLike<never>> {
    const inf = this.#opts.informers;
    const own = [inf.egresses, inf.externalIPPools] as Array<InformerLike<never>>;
    if (!inf.sharedPodInformers)
      own.push(inf.pods as InformerLike<never>, inf.namespaces as InformerLike<never>);
    return own;
  }

  /** Settles when no sync is running or queued (tests). */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  async #sync(): Promise<void> {
    const egresses = [...this.#egresses.values()];
    for (const name of [...this.#pending.keys()]) {
      const e = this.#egresses.get(`/${name}`);
      if (!e || e.spec.egressIP !== undefined || !e.spec.externalIPPool) this.#pending.delete(name);
    }
    const plan = planAllocations([...this.#pools.values()], egresses, this.#pending);
    this.#syncGroups(egresses);
    const errors: unknown[] = [];
    const attempt = async (what: string, write: () => Promise<void>) => {
      try {
        await write();
      } catch (err) {
        this.#log.warn({ err: String(err), what }, 'Egress write failed');
        errors.push(err);
      }
    };
    // Objects rewritten here are stale now: their status waits for the informer's next version.
    const rewritten = new Set<string>();
    for (const [name, ip] of plan.toWrite) {
      const e = this.#egresses.get(`/${name}`);
      if (!e || e.spec.egressIP !== undefined) continue;
      this.#pending.set(name, ip);
      this.#log.info({ egress: name, ip, pool: e.spec.externalIPPool }, 'allocated Egress IP');
      rewritten.add(name);
      await attempt(`egressIP of ${name}`, () => this.#opts.writer.setEgressIP(e, ip));
    }
    for (const e of egresses) {
      const name = e.metadata.name ?? '';
      if (!e.spec.externalIPPool || rewritten.has(name)) continue;
      const ip = plan.allocated.get(name);
      const failure = plan.failed.get(name);
      const want: Omit<CrdCondition<EgressConditionType>, 'lastTransitionTime'> = ip
        ? {
            type: 'IPAllocated',
            status: 'True',
            reason: EGRESS_CONDITION_REASONS.allocated,
            message: 'EgressIP is successfully allocated',
          }
        : {
            type: 'IPAllocated',
            status: 'False',
            reason: EGRESS_CONDITION_REASONS.allocationError,
            message: `Cannot allocate EgressIP from ExternalIPPool: ${failure ?? 'not allocated'}`,
          };
      const conditions = withEgressCondition(e.status?.conditions ?? [], want, this.#opts.clock.now());
      if (!conditions) continue;
      const status: EgressStatus = { ...(e.status ?? {}), conditions };
      await attempt(`status of ${name}`, () => this.#opts.writer.setEgressStatus(e, status));
    }
    for (const pool of this.#pools.values()) {
      const usage = plan.usage.get(pool.metadata.name ?? '');
      const have = pool.status?.usage;
      if (!usage || (have && have.total === usage.total && have.used === usage.used)) continue;
      await attempt(`usage of ${pool.metadata.name}`, () => this.#opts.writer.setPoolUsage(pool, usage));
    }
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} Egress writes failed`);
  }

  #syncGroups(egresses: readonly Egress[]): void {
    const store = this.#opts.groups;
    const wanted = new Set<string>();
    const namespaces = this.#namespacesByName();
    for (const e of egresses) {
      let group: InternalEgressGroup;
      try {
        group = computeEgressGroup(e, this.#pods.values(), namespaces);
      } catch (err) {
        this.#log.warn({ err: String(err), egress: e.metadata.name }, 'Egress appliedTo does not compile');
        continue;
      }
      wanted.add(group.name);
      const prev = store.get(group.name)?.object;
      if (!prev || !sameEgressGroup(prev, group)) store.put(group);
    }
    for (const { object } of store.list().items) if (!wanted.has(object.name)) store.delete(object.name);
  }

  #namespacesByName(): Map<string, V1Namespace> {
    const out = new Map<string, V1Namespace>();
    for (const ns of this.#namespaces.values()) out.set(ns.metadata?.name ?? '', ns);
    return out;
  }
}
