import type { Logger } from 'pino';
import { Backoff, type Clock, systemClock } from '../clock.js';
import { AdapterError, NsxRequestError } from '../errors.js';
import type { ComponentCondition } from '../health.js';
import type { InventorySource } from '../k8s/kube-inventory-source.js';
import type { InventoryUpdate, MpChannel } from '../nsx/channels.js';
import {
  buildInventory,
  type ContainerObject,
  diffInventory,
  INVENTORY_KINDS,
  type InventorySnapshot,
} from './inventory.js';

export interface InventoryReporterOptions {
  channel: MpChannel;
  source: InventorySource;
  logger: Logger;
  clusterName: string;
  /** The cluster UUID (ClusterControlPlane node_id) the inventory is filed under. */
  clusterUuid: string;
  clock?: Clock;
  /** Objects per batch request (InventoryBatchSize, real default 50). */
  batchSize?: number;
  /** Debounce between a change and its report, ms (InventoryBatchPeriod, real default 5 s). */
  batchPeriodMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
}

/**
 * Reports the cluster's inventory to NSX as batched incremental updates.
 *
 * Full sync at start and after every reconnect: NSX's current objects for this cluster are read
 * back (paged fabric lists) and diffed against the cluster, so stale NSX objects are deleted and
 * nothing is created twice. Afterwards changes are collected for `batchPeriodMs`, the whole snapshot
 * is rebuilt (cheap, pure) and diffed against what NSX was last told; only the differences are sent,
 * in batches of `batchSize`. Any NSX failure marks the reporter disconnected; it retries with
 * backoff and the next success starts with a full sync again.
 */
export class InventoryReporter {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly backoff: Backoff;
  private reported = new Map<string, Record<string, unknown>>();
  private connected = false;
  private dirty = true;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private stopping: Promise<void> | undefined;
  private condition: ComponentCondition;
  private flushWaiters: (() => void)[] = [];
  /** Objects sent so far, and objects NSX refused (benchmarks, tests). */
  sentObjects = 0;
  rejected = 0;

  constructor(private readonly opts: InventoryReporterOptions) {
    this.log = opts.logger.child({ component: 'inventory-reporter' });
    this.clock = opts.clock ?? systemClock;
    this.backoff = new Backoff(opts.backoffInitialMs ?? 500, opts.backoffMaxMs ?? 30_000);
    this.condition = {
      type: 'InventorySynced',
      status: 'UNKNOWN',
      reason: 'Starting',
      last_transition_time: this.clock.now(),
    };
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.abort) return;
    this.abort = new AbortController();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.opts.source.start(() => this.schedule(), this.abort.signal);
    // The initial list fires change events too; the full sync must not wait a batch period for them.
    clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule(0);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort?.abort();
      clearTimeout(this.timer);
      await this.running;
      await this.opts.source.stop();
      for (const w of this.flushWaiters.splice(0)) w();
    })();
    return this.stopping;
  }

  get health(): ComponentCondition {
    return { ...this.condition };
  }

  /** Resolves after the next successful flush (tests, benchmarks). */
  nextFlush(): Promise<void> {
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  private schedule(delayMs = this.opts.batchPeriodMs ?? 5000): void {
    this.dirty = true;
    if (this.timer || this.abort?.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.running) this.running = this.flushLoop().finally(() => (this.running = undefined));
    }, delayMs);
  }

  private snapshot(): InventorySnapshot {
    return Object.fromEntries(
      INVENTORY_KINDS.map((k) => [k, this.opts.source.list(k)]),
    ) as unknown as InventorySnapshot;
  }

  private async flushLoop(): Promise<void> {
    while (this.dirty && !this.abort?.signal.aborted) {
      this.dirty = false;
      try {
        await this.flush();
        this.backoff.reset();
        this.setCondition(true, 'Synced');
        for (const w of this.flushWaiters.splice(0)) w();
      } catch (err) {
        if (this.abort?.signal.aborted) return;
        this.connected = false;
        const message = err instanceof Error ? err.message : String(err);
        this.setCondition(false, AdapterError.is(err) ? err.code : 'Error', message);
        const delay = this.backoff.next();
        this.log.warn({ err: message, retryInMs: delay }, 'inventory report failed; will fully resync');
        this.dirty = false;
        this.schedule(delay);
        return;
      }
    }
  }

  private setCondition(ok: boolean, reason: string, message?: string): void {
    const status = ok ? 'TRUE' : 'FALSE';
    this.condition = {
      type: 'InventorySynced',
      status,
      reason,
      ...(message ? { message } : {}),
      last_transition_time:
        this.condition.status === status
          ? (this.condition.last_transition_time ?? this.clock.now())
          : this.clock.now(),
    };
  }

  /** Records progress per batch so a failure half-way does not resend what NSX already has. */
  private recordSent(batch: readonly InventoryUpdate[]): void {
    for (const u of batch) {
      const k = `${u.container_object.resource_type}/${u.container_object.external_id}`;
      if (u.object_update_type === 'DELETE') this.reported.delete(k);
      else this.reported.set(k, u.container_object as ContainerObject);
    }
    this.sentObjects += batch.length;
  }

  private async flush(): Promise<void> {
    const { channel, clusterUuid } = this.opts;
    if (!this.connected) {
      // Full sync: what NSX has now for this cluster is the baseline.
      const reported = new Map<string, Record<string, unknown>>();
      const cluster = await channel.listInventory('ContainerCluster', clusterUuid);
      for (const o of cluster)
        if (o['external_id'] === clusterUuid) reported.set(`ContainerCluster/${clusterUuid}`, o);
      for (const t of [
        'ContainerProject',
        'ContainerApplication',
        'ContainerApplicationInstance',
        'ContainerClusterNode',
        'ContainerNetworkPolicy',
        'ContainerIngressPolicy',
      ]) {
        for (const o of await channel.listInventory(t, clusterUuid))
          reported.set(`${t}/${String(o['external_id'])}`, o);
      }
      this.reported = reported;
      this.connected = true;
      this.log.info({ objects: reported.size }, 'inventory full sync: NSX state read');
    }
    const desired = buildInventory(this.snapshot(), { uuid: clusterUuid, name: this.opts.clusterName });
    const diff = diffInventory(desired, this.reported);
    const updates: InventoryUpdate[] = [
      ...diff.creates.map((o) => ({ object_update_type: 'CREATE' as const, container_object: o })),
      ...diff.updates.map((o) => ({ object_update_type: 'UPDATE' as const, container_object: o })),
      ...diff.deletes.map((o) => ({ object_update_type: 'DELETE' as const, container_object: o })),
    ];
    const size = this.opts.batchSize ?? 50;
    for (let i = 0; i < updates.length; i += size) {
      const batch = updates.slice(i, i + size);
      try {
        await channel.sendInventory(clusterUuid, batch);
        this.recordSent(batch);
      } catch (err) {
        // NSX validates a batch as a whole: one object it refuses must not block the others.
        if (!(err instanceof NsxRequestError) || err.status !== 400 || batch.length === 1) throw err;
        for (const u of batch) {
          try {
            await channel.sendInventory(clusterUuid, [u]);
          } catch (e) {
            if (!(e instanceof NsxRequestError) || e.status !== 400) throw e;
            this.rejected += 1;
            this.log.warn(
              {
                object: `${u.container_object.resource_type}/${u.container_object.external_id}`,
                err: e.message,
              },
              'NSX refused an inventory object; skipping it until it changes',
            );
          }
          // Refused objects count as sent, so they are retried only when they change.
          this.recordSent([u]);
        }
      }
    }
    if (updates.length > 0) {
      this.log.debug(
        { creates: diff.creates.length, updates: diff.updates.length, deletes: diff.deletes.length },
        'inventory reported',
      );
    }
  }
}
