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
import {
  egressClaim,
  type PoolClaim,
  type PoolClaimSource,
  type PoolUsage,
  planAllocations,
} from './allocation-plan.js';
import { computeEgressGroup, type InternalEgressGroup, sameEgressGroup } from './egress-group.js';
import { followInto, restartStoppedInformers } from './informer-cache.js';

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

/**
 * antrea-controller's Egress side (Antrea's pkg/controller/egress and externalippool): allocates
 * pool IPs to Egresses that have a pool and no egressIP, writes the IPAllocated condition and each
 * pool's usage, and keeps one EgressGroup per Egress in `groups` for the API server to serve.
 * Every sync recomputes all of it from the informers' caches (the state is small: a handful of
 * Egresses); syncs are serialized and coalesced.
 */
export class EgressController implements PoolClaimSource {
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
  readonly #claimListeners: Array<() => void> = [];
  /** Claims of other kinds on the pools (ServiceExternalIP's Services): avoided, and counted in the usage. */
  #otherClaims: PoolClaimSource | undefined;

  constructor(opts: EgressControllerOptions) {
    this.#opts = opts;
    this.#log = opts.logger.child({ component: 'egress-controller' });
    this.#loop = new SyncLoop({
      sync: () => this.#sync(),
      onError: (err) => this.#log.warn({ err }, 'Egress sync failed; retrying'),
      ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    });
    const changed = () => this.#loop.schedule();
    // Only Egress events change what the other claimants read (heldClaims), not Pod churn.
    const egressChanged = () => {
      changed();
      for (const listener of this.#claimListeners) listener();
    };
    const inf = opts.informers;
    followInto(inf.egresses, this.#egresses, egressChanged);
    followInto(inf.externalIPPools, this.#pools, changed);
    followInto(inf.pods, this.#pods, changed, slimPod);
    followInto(inf.namespaces, this.#namespaces, changed);
    restartStoppedInformers(
      [inf.egresses, inf.externalIPPools, inf.pods, inf.namespaces] as Array<InformerLike<never>>,
      () => this.#started,
      (err) => this.#log.warn({ err: String(err) }, 'Egress informer failed; restarting'),
      this.#opts.retryMs ?? 1000,
    );
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

  /** Shares the pools with another claimant (before start). */
  followClaims(source: PoolClaimSource): void {
    this.#otherClaims = source;
    source.onChange(() => this.#loop.schedule());
  }

  heldClaims(): PoolClaim[] {
    const out: PoolClaim[] = [];
    for (const e of this.#egresses.values()) {
      const claim = egressClaim(e);
      const ip = claim && (claim.ip ?? this.#pending.get(claim.key));
      if (claim && ip) out.push({ ...claim, key: `Egress:${claim.key}`, ip });
    }
    return out;
  }

  onChange(changed: () => void): void {
    this.#claimListeners.push(changed);
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
    const others = this.#otherClaims?.heldClaims() ?? [];
    const plan = planAllocations([...this.#pools.values()], egresses, this.#pending, others);
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
    // Every new IP is pending before the first write: the other claimants read them meanwhile.
    for (const [name, ip] of plan.toWrite) if (this.#egresses.get(`/${name}`)) this.#pending.set(name, ip);
    if (plan.toWrite.size > 0) for (const listener of this.#claimListeners) listener();
    for (const [name, ip] of plan.toWrite) {
      const e = this.#egresses.get(`/${name}`);
      if (!e || e.spec.egressIP !== undefined) continue;
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
