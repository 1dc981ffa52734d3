import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  type ServicePortFlowConfig,
  servicePortFlows,
  serviceStaticFlows,
} from '../openflow/features/service.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { GroupIdAllocator } from './group-ids.js';
import { type ModelOptions, SERVICE_NAME_LABEL, serviceKey, servicePortModels } from './model.js';
import type { ProxyMetrics } from './proxy-metrics.js';
import type { ServiceHandlers, ServiceSource } from './service-source.js';

/** The part of FlowCache the proxier writes through. */
export type ProxyFlowSink = Pick<FlowCache, 'replace' | 'replaceMany' | 'pruneGroups'>;

export interface ProxierOptions extends Partial<ModelOptions> {
  readonly nodeName: string;
  readonly source: ServiceSource;
  readonly flows: ProxyFlowSink;
  readonly ctx: FlowContext;
  readonly logger: Logger;
  readonly metrics?: ProxyMetrics;
  /** How long a burst of events may gather before one sync (default 0: the next macrotask). */
  readonly coalesceMs?: number;
}

/** The key of the Service a slice belongs to (its kubernetes.io/service-name label), if any. */
const serviceOfSlice = (slice: V1EndpointSlice): string | undefined => {
  const name = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return name === undefined ? undefined : serviceKey(slice.metadata?.namespace, name);
};

/** Owner key of the flows every Node needs once when AntreaProxy is on. */
export const SERVICE_STATIC_OWNER = 'service';

/**
 * AntreaProxy's control half (Antrea pkg/agent/proxy): keeps Services and EndpointSlices, and after
 * each burst of changes writes the service ports whose flows or groups differ, one FlowCache batch
 * per sync. Nothing is written before both initial lists are in, so a restart never removes a
 * service port only because its EndpointSlice had not arrived yet.
 */
export class Proxier implements ServiceHandlers {
  private readonly services = new Map<string, V1Service>();
  private readonly slices = new Map<string, V1EndpointSlice>();
  /** Service key -> its slices by slice key: each sync looks a Service's slices up, never scans. */
  private readonly slicesByService = new Map<string, Map<string, V1EndpointSlice>>();
  private readonly groupIds = new GroupIdAllocator();
  /** Owner key -> the config last written for it. */
  private readonly applied = new Map<string, string>();
  private readonly log: Logger;
  private isSynced = false;
  private markSynced: () => void = () => undefined;
  /** Resolves on the source's synced() (or on stop()). */
  private readonly firstLists = new Promise<void>((resolve) => {
    this.markSynced = resolve;
  });
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  private readonly model: ModelOptions;

  constructor(private readonly o: ProxierOptions) {
    this.log = o.logger.child({ component: 'proxier' });
    this.model = {
      nodeName: o.nodeName,
      skipServices: o.skipServices ?? [],
      serviceProxyName: o.serviceProxyName ?? '',
    };
  }

  /** Installs the static service flows, then follows the source; resolves after the first sync. */
  async start(): Promise<void> {
    await this.o.flows.replace(SERVICE_STATIC_OWNER, serviceStaticFlows(this.o.ctx));
    await this.o.source.start(this);
    // Not before both lists are in: pruning with nothing known would delete every live group.
    await this.firstLists;
    if (this.stopped) return;
    await this.idle();
    if (this.stopped) return;
    const pruned = await this.o.flows.pruneGroups();
    if (pruned > 0) this.log.info({ pruned }, 'removed stale Service groups');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.o.source.stop();
    await this.running;
    // Nothing more will be written: whoever waits (a start() cut short) goes on.
    this.markSynced();
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Service ports currently installed (owner keys). */
  installed(): string[] {
    return [...this.applied.keys()];
  }

  /** Resolves once no change is waiting or being written. */
  idle(): Promise<void> {
    if (!this.dirty && !this.running && !this.timer) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  upsertService(svc: V1Service): void {
    this.services.set(serviceKey(svc.metadata?.namespace, svc.metadata?.name), svc);
    this.changed();
  }

  removeService(key: string): void {
    if (this.services.delete(key)) this.changed();
  }

  upsertSlice(slice: V1EndpointSlice): void {
    const key = serviceKey(slice.metadata?.namespace, slice.metadata?.name);
    this.unindexSlice(key);
    this.slices.set(key, slice);
    const svc = serviceOfSlice(slice);
    if (svc !== undefined) {
      const forService = this.slicesByService.get(svc) ?? new Map<string, V1EndpointSlice>();
      forService.set(key, slice);
      this.slicesByService.set(svc, forService);
    }
    this.changed();
  }

  removeSlice(key: string): void {
    this.unindexSlice(key);
    if (this.slices.delete(key)) this.changed();
  }

  /** Forgets a slice's place in the index (its service label may change between versions). */
  private unindexSlice(key: string): void {
    const old = this.slices.get(key);
    const svc = old && serviceOfSlice(old);
    if (svc === undefined) return;
    const forService = this.slicesByService.get(svc);
    forService?.delete(key);
    if (forService?.size === 0) this.slicesByService.delete(svc);
  }

  synced(): void {
    this.isSynced = true;
    this.markSynced();
    this.changed();
  }

  private changed(): void {
    this.dirty = true;
    if (!this.isSynced || this.stopped || this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.syncLoop().finally(() => {
        this.running = undefined;
        if (this.dirty && !this.stopped) this.changed();
        else for (const w of this.idleWaiters.splice(0)) w();
      });
    }, this.o.coalesceMs ?? 0);
  }

  private async syncLoop(): Promise<void> {
    this.dirty = false;
    const started = performance.now();
    try {
      await this.sync();
    } catch (err) {
      // The FlowCache keeps what it could not write; the next change (or resync) retries.
      this.log.error({ err }, 'Service sync failed');
      this.dirty = true;
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      this.o.metrics?.syncDuration.observe((performance.now() - started) / 1000);
    }
  }

  private slicesOf = (svcKey: string): V1EndpointSlice[] => [
    ...(this.slicesByService.get(svcKey)?.values() ?? []),
  ];

  private async sync(): Promise<void> {
    const wanted = servicePortModels(this.services.values(), this.slicesOf, this.model);
    const changes: Parameters<ProxyFlowSink['replaceMany']>[0][number][] = [];
    const next = new Map<string, string>();
    let endpoints = 0;
    for (const [owner, model] of wanted) {
      const { owner: _, ...rest } = model;
      const cfg: ServicePortFlowConfig = { ...rest, groupId: this.groupIds.idFor(owner) };
      const text = JSON.stringify(cfg);
      next.set(owner, text);
      endpoints += cfg.endpoints.length;
      if (this.applied.get(owner) === text) continue;
      const { flows, groups } = servicePortFlows(this.o.ctx, cfg);
      changes.push([owner, flows, groups]);
    }
    const removed = [...this.applied.keys()].filter((owner) => !wanted.has(owner));
    for (const owner of removed) changes.push([owner, undefined]);
    if (changes.length > 0) await this.o.flows.replaceMany(changes);
    // Ids are freed only once their groups are gone, so no new service port reuses a live group.
    for (const owner of removed) this.groupIds.release(owner);
    this.applied.clear();
    for (const [k, v] of next) this.applied.set(k, v);
    this.o.metrics?.servicesInstalled.set(next.size);
    this.o.metrics?.endpointsInstalled.set(endpoints);
    if (changes.length > 0)
      this.log.info(
        { changed: changes.length - removed.length, removed: removed.length },
        'Service ports synced',
      );
  }
}
