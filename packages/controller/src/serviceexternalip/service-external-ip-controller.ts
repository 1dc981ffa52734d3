import type { ExternalIPPool } from '@antrea-ts/apis';
import { SyncLoop } from '@antrea-ts/apis';
import type { V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  type PoolClaim,
  type PoolClaimSource,
  type PoolUsage,
  planPoolClaims,
} from '../egress/allocation-plan.js';
import { followInto, restartStoppedInformers } from '../egress/informer-cache.js';
import type { InformerLike } from '../informers/informers.js';
import { ingressIp, serviceClaim, serviceClaimKey } from './service-claims.js';

/** Writes to kube-apiserver; failures are retried by the next sync. */
export interface ServiceExternalIPWriter {
  /** status.loadBalancer.ingress: [{ ip }], or none when `ip` is undefined. */
  setIngressIp(svc: V1Service, ip: string | undefined): Promise<void>;
  setPoolUsage(pool: ExternalIPPool, usage: PoolUsage): Promise<void>;
}

export interface ServiceExternalIPInformers {
  services: InformerLike<V1Service>;
  externalIPPools: InformerLike<ExternalIPPool>;
}

export interface ServiceExternalIPControllerOptions {
  informers: ServiceExternalIPInformers;
  writer: ServiceExternalIPWriter;
  logger: Logger;
  /**
   * Write each pool's usage (counting the other claimants' IPs too). Off when the Egress controller
   * runs: it writes the usage of both, so the two never race on the pool's status.
   */
  writesPoolUsage: boolean;
  /** Delay before retrying after a failed write, ms. */
  retryMs?: number;
}

/**
 * antrea-controller's ServiceExternalIP side (Antrea's pkg/controller/serviceexternalip): gives
 * each LoadBalancer Service annotated service.antrea.io/external-ip-pool an IP of that pool in
 * status.loadBalancer.ingress, from the same ExternalIPPools as Egresses (shared through
 * PoolClaimSource). An IP is released when its Service is deleted, stops being a LoadBalancer or
 * loses the annotation (its ingress is then emptied), or when its pool goes. Every sync recomputes
 * the whole plan from the caches; syncs are serialized and coalesced.
 */
export class ServiceExternalIPController implements PoolClaimSource {
  readonly #opts: ServiceExternalIPControllerOptions;
  readonly #log: Logger;
  readonly #services = new Map<string, V1Service>();
  readonly #pools = new Map<string, ExternalIPPool>();
  /** IPs written into a Service's ingress and not seen back from the informer yet (by claim key). */
  readonly #pending = new Map<string, string>();
  /** The ingress IP this controller gave or restored, per claim key: what it may take away again. */
  readonly #given = new Map<string, string>();
  /** The last failure logged per claim key, so a lasting one is logged once. */
  readonly #failures = new Map<string, string>();
  readonly #claimListeners: Array<() => void> = [];
  #otherClaims: PoolClaimSource | undefined;
  #started = false;
  readonly #loop: SyncLoop;

  constructor(opts: ServiceExternalIPControllerOptions) {
    this.#opts = opts;
    this.#log = opts.logger.child({ component: 'service-external-ip-controller' });
    this.#loop = new SyncLoop({
      sync: () => this.#sync(),
      onError: (err) => this.#log.warn({ err }, 'ServiceExternalIP sync failed; retrying'),
      ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    });
    const changed = () => this.#loop.schedule();
    const servicesChanged = () => {
      changed();
      this.#notify();
    };
    const inf = opts.informers;
    followInto(inf.services, this.#services, servicesChanged);
    followInto(inf.externalIPPools, this.#pools, changed);
    restartStoppedInformers(
      [inf.services, inf.externalIPPools] as Array<InformerLike<never>>,
      () => this.#started,
      (err) => this.#log.warn({ err: String(err) }, 'ServiceExternalIP informer failed; restarting'),
      opts.retryMs ?? 1000,
    );
  }

  /** Shares the pools with another claimant (the Egress controller), before start. */
  followClaims(source: PoolClaimSource): void {
    this.#otherClaims = source;
    source.onChange(() => this.#loop.schedule());
  }

  heldClaims(): PoolClaim[] {
    const out: PoolClaim[] = [];
    for (const svc of this.#services.values()) {
      const claim = serviceClaim(svc, (name) => this.#pool(name));
      const ip = claim && (claim.ip ?? this.#pending.get(claim.key));
      if (claim && ip) out.push({ ...claim, ip });
    }
    return out;
  }

  onChange(changed: () => void): void {
    this.#claimListeners.push(changed);
  }

  /** Lists Services and pools, then syncs once; resolves after that first sync. */
  async start(): Promise<void> {
    const inf = this.#opts.informers;
    await Promise.all([inf.services.start(), inf.externalIPPools.start()]);
    this.#started = true;
    this.#loop.start();
    await this.#loop.idle();
  }

  async stop(): Promise<void> {
    this.#started = false;
    const inf = this.#opts.informers;
    await Promise.all([inf.services.stop(), inf.externalIPPools.stop()]);
    await this.#loop.stop();
  }

  /** Settles when no sync is running or queued (tests). */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #notify(): void {
    for (const listener of this.#claimListeners) listener();
  }

  #pool(name: string): ExternalIPPool | undefined {
    return this.#pools.get(`/${name}`);
  }

  async #sync(): Promise<void> {
    const services = [...this.#services.values()];
    const byKey = new Map(services.map((s) => [serviceClaimKey(s), s]));
    for (const [key, ip] of [...this.#pending]) {
      const svc = byKey.get(key);
      if (!svc || ingressIp(svc) === ip) this.#pending.delete(key);
    }
    for (const key of [...this.#given.keys()]) if (!byKey.has(key)) this.#given.delete(key);
    const claims = services.flatMap((s) => serviceClaim(s, (name) => this.#pool(name)) ?? []);
    const others = this.#otherClaims?.heldClaims() ?? [];
    const plan = planPoolClaims([...this.#pools.values()], [...claims, ...others], this.#pending);
    const claimOf = new Map(claims.map((c) => [c.key, c]));

    // What each Service's first ingress IP must be: the plan's IP for a claim; for a Service that
    // no longer claims, none if the IP there is one this controller gave.
    const writes: Array<{ svc: V1Service; key: string; ip: string | undefined }> = [];
    for (const svc of services) {
      const key = serviceClaimKey(svc);
      const claim = claimOf.get(key);
      const have = ingressIp(svc);
      if (!claim) {
        if (have !== undefined && this.#given.get(key) === have) writes.push({ svc, key, ip: undefined });
        else this.#given.delete(key);
        continue;
      }
      const want = plan.allocated.get(key);
      if (want === undefined) {
        this.#logFailure(svc, plan.failed.get(key) ?? 'not allocated');
        const poolGone = !this.#pool(claim.pool);
        if (have !== undefined && (poolGone || this.#given.get(key) === have))
          writes.push({ svc, key, ip: undefined });
        continue;
      }
      this.#failures.delete(key);
      if (have === want) {
        this.#given.set(key, want);
        continue;
      }
      if (this.#pending.get(key) === want) continue;
      writes.push({ svc, key, ip: want });
    }
    // New IPs are pending before the first write: the other claimants read them meanwhile.
    for (const w of writes) if (w.ip !== undefined) this.#pending.set(w.key, w.ip);
    if (writes.some((w) => w.ip !== undefined)) this.#notify();

    const errors: unknown[] = [];
    const attempt = async (what: string, write: () => Promise<void>) => {
      try {
        await write();
      } catch (err) {
        this.#log.warn({ err: String(err), what }, 'ServiceExternalIP write failed');
        errors.push(err);
      }
    };
    for (const { svc, key, ip } of writes) {
      const name = key.slice('Service:'.length);
      if (ip === undefined) {
        this.#log.info({ service: name, ip: ingressIp(svc) }, 'released Service external IP');
        this.#given.delete(key);
      } else {
        this.#log.info({ service: name, ip, pool: claimOf.get(key)?.pool }, 'allocated Service external IP');
        this.#given.set(key, ip);
      }
      await attempt(`ingress of ${name}`, async () => {
        try {
          await this.#opts.writer.setIngressIp(svc, ip);
        } catch (err) {
          // Not written: the next sync plans this Service again instead of waiting to see it.
          this.#pending.delete(key);
          throw err;
        }
      });
    }
    if (this.#opts.writesPoolUsage) {
      for (const pool of this.#pools.values()) {
        const usage = plan.usage.get(pool.metadata.name ?? '');
        const have = pool.status?.usage;
        if (!usage || (have && have.total === usage.total && have.used === usage.used)) continue;
        await attempt(`usage of ${pool.metadata.name}`, () => this.#opts.writer.setPoolUsage(pool, usage));
      }
    }
    if (errors.length > 0)
      throw new AggregateError(errors, `${errors.length} ServiceExternalIP writes failed`);
  }

  #logFailure(svc: V1Service, why: string): void {
    const key = serviceClaimKey(svc);
    if (this.#failures.get(key) === why) return;
    this.#failures.set(key, why);
    this.#log.warn({ service: key.slice('Service:'.length), why }, 'cannot allocate a Service external IP');
  }
}
