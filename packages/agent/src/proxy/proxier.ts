import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  type EndpointSelection,
  type ProxyAllNode,
  type ServicePortFlowConfig,
  servicePortFlows,
  serviceStaticFlows,
  VIRTUAL_NODEPORT_DNAT_IP,
} from '../openflow/features/service.js';
import type { FlowCache, OwnerChange } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { GroupIdAllocator } from './group-ids.js';
import { type ModelOptions, servicePortModels } from './model.js';
import type { ProxyMetrics } from './proxy-metrics.js';
import type { ServiceGroupIndex } from './service-group-index.js';
import { type ServiceHostListener, type ServiceHostState, serviceHostState } from './service-host-state.js';
import type { ServiceHandlers, ServiceSource } from './service-source.js';
import { ServiceStore } from './service-store.js';
import {
  type StaleUdpConntrack,
  type StaleUdpFlow,
  staleUdpFlows,
  type UdpPortState,
} from './stale-udp-conntrack.js';

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
  /** Told each Service's group ids after every write (NetworkPolicy `toServices` peers match them). */
  readonly serviceGroups?: ServiceGroupIndex;
  /** How groups pick endpoints (default `datapath`; the userspace datapath needs `fiveTuple`). */
  readonly endpointSelection?: EndpointSelection;
  /** With `proxyAll`: this Node's gateway and NodePort addresses for the static flows. */
  readonly proxyAllNode?: ProxyAllNode;
  /** Told each Service's host-side needs (NodePorts, VIPs, health check) after every write. */
  readonly hostListeners?: readonly ServiceHostListener[];
  /**
   * Antrea's CleanupStaleUDPSvcConntrack: told, after each write, the UDP connections whose
   * endpoint or address went; none: their conntrack entries live until they time out.
   */
  readonly staleUdpConntrack?: StaleUdpConntrack;
}

/** Owner key of the flows every Node needs once when AntreaProxy is on. */
export const SERVICE_STATIC_OWNER = 'service';

/** What was last written for one service port. */
interface AppliedPort {
  /** Its ServicePortFlowConfig as JSON: equal text, nothing to write. */
  readonly config: string;
  readonly endpoints: number;
  readonly groupId: number;
  /** The externalTrafficPolicy Local group's id, when it has one. */
  readonly localGroupId?: number;
  /** UDP ports: where their connections arrive and the endpoints (both groups) they may be DNATed to. */
  readonly udp?: UdpPortState;
}

/**
 * Where a UDP service port's connections arrive as OVS conntrack sees them: its ClusterIP and external
 * IPs on the service port, and NodePort traffic on the virtual NodePort IP (iptables DNATed it there
 * before OVS), with every endpoint of both groups.
 */
const udpPortState = (cfg: ServicePortFlowConfig): UdpPortState => ({
  targets: [
    ...[cfg.clusterIp, ...(cfg.externalIps ?? [])].map((vip) => ({ vip, port: cfg.port })),
    ...(cfg.nodePort !== undefined ? [{ vip: VIRTUAL_NODEPORT_DNAT_IP, port: cfg.nodePort }] : []),
  ],
  endpoints: [...cfg.endpoints, ...(cfg.local?.endpoints ?? [])],
});

/** The FlowCache-independent key of a service port's Local group in the id allocator. */
const localGroupKey = (owner: string): string => `${owner}/local`;

const endpointsOf = (ports: ReadonlyMap<string, AppliedPort> | undefined): number => {
  let n = 0;
  for (const p of ports?.values() ?? []) n += p.endpoints;
  return n;
};

/**
 * AntreaProxy's control half (Antrea pkg/agent/proxy): keeps Services and EndpointSlices, and after
 * each burst of changes writes the service ports whose flows or groups differ, one FlowCache batch
 * per sync. A sync recomputes only the Services that events touched since the previous one (the
 * others keep what was written for them), so its cost follows the change, not the cluster. Nothing
 * is written before both initial lists are in, so a restart never removes a service port only
 * because its EndpointSlice had not arrived yet.
 */
export class Proxier implements ServiceHandlers {
  private readonly store = new ServiceStore();
  private readonly groupIds = new GroupIdAllocator();
  /** Service key -> its ports on the switch (owner key -> what was written). */
  private readonly applied = new Map<string, Map<string, AppliedPort>>();
  private portsInstalled = 0;
  private endpointsInstalled = 0;
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

  private model: ModelOptions;

  constructor(private readonly o: ProxierOptions) {
    this.log = o.logger.child({ component: 'proxier' });
    this.model = {
      nodeName: o.nodeName,
      skipServices: o.skipServices ?? [],
      serviceProxyName: o.serviceProxyName ?? '',
      proxyAll: o.proxyAll ?? false,
      proxyLoadBalancerIPs: o.proxyLoadBalancerIPs ?? true,
      ...(o.nodeZone ? { nodeZone: o.nodeZone } : {}),
    };
  }

  /**
   * This Node's topology.kubernetes.io/zone label changed: every Service is recomputed, since zone
   * hints pick other endpoints now (Antrea resyncs all Services on a Node label change too).
   */
  setNodeZone(zone: string | undefined): void {
    if ((zone || undefined) === this.model.nodeZone) return;
    const { nodeZone: _, ...rest } = this.model;
    this.model = { ...rest, ...(zone ? { nodeZone: zone } : {}) };
    this.log.info({ zone }, 'Node zone changed; recomputing Services');
    this.store.touchAllServices();
    this.changed();
  }

  /** Installs the static service flows, then follows the source; resolves after the first sync. */
  async start(): Promise<void> {
    await this.o.flows.replace(
      SERVICE_STATIC_OWNER,
      serviceStaticFlows(this.o.ctx, this.model.proxyAll ? this.o.proxyAllNode : undefined),
    );
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
    return [...this.applied.values()].flatMap((ports) => [...ports.keys()]);
  }

  /** Resolves once no change is waiting or being written. */
  idle(): Promise<void> {
    if (!this.dirty && !this.running && !this.timer) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  upsertService(svc: V1Service): void {
    this.store.upsertService(svc);
    this.changed();
  }

  removeService(key: string): void {
    if (this.store.removeService(key)) this.changed();
  }

  upsertSlice(slice: V1EndpointSlice): void {
    this.store.upsertSlice(slice);
    this.changed();
  }

  removeSlice(key: string): void {
    if (this.store.removeSlice(key)) this.changed();
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

  private async sync(): Promise<void> {
    const touched = this.store.takeTouched();
    const changes: OwnerChange[] = [];
    const next = new Map<string, Map<string, AppliedPort>>();
    /** Owner keys of ports that went. */
    const removed: string[] = [];
    /** Allocator keys whose group ids are free once this batch is written. */
    const released: string[] = [];
    /** Ports that got a group id in this sync; they give it back if the write fails. */
    const fresh: string[] = [];
    const hostChanges = new Map<string, ServiceHostState | undefined>();
    for (const svcKey of touched) {
      const svc = this.store.service(svcKey);
      const wanted = servicePortModels(svc ? [svc] : [], this.store.slicesOf, this.model);
      const before = this.applied.get(svcKey);
      const ports = new Map<string, AppliedPort>();
      for (const [owner, { owner: _, localEndpoints, ...model }] of wanted) {
        if (!before?.has(owner)) fresh.push(owner);
        if (localEndpoints && !before?.get(owner)?.localGroupId) fresh.push(localGroupKey(owner));
        const cfg: ServicePortFlowConfig = {
          ...model,
          groupId: this.groupIds.idFor(owner),
          ...(localEndpoints && {
            local: { groupId: this.groupIds.idFor(localGroupKey(owner)), endpoints: localEndpoints },
          }),
        };
        const config = JSON.stringify(cfg);
        ports.set(owner, {
          config,
          endpoints: cfg.endpoints.length,
          groupId: cfg.groupId,
          ...(cfg.local && { localGroupId: cfg.local.groupId }),
          ...(cfg.protocol === 'UDP' && { udp: udpPortState(cfg) }),
        });
        const previous = before?.get(owner);
        if (previous?.localGroupId !== undefined && !cfg.local) released.push(localGroupKey(owner));
        if (previous?.config === config) continue;
        const { flows, groups } = servicePortFlows(this.o.ctx, cfg, this.o.endpointSelection ?? 'datapath');
        changes.push([owner, flows, groups]);
      }
      for (const [owner, port] of before ?? []) {
        if (wanted.has(owner)) continue;
        removed.push(owner);
        released.push(owner);
        if (port.localGroupId !== undefined) released.push(localGroupKey(owner));
        changes.push([owner, undefined]);
      }
      next.set(svcKey, ports);
      if (this.o.hostListeners?.length) hostChanges.set(svcKey, svc && serviceHostState(svc, wanted));
    }
    try {
      if (changes.length > 0) await this.o.flows.replaceMany(changes);
    } catch (err) {
      // Nothing of this batch is applied: its Services are recomputed by the retry.
      for (const owner of fresh) this.groupIds.release(owner);
      this.store.touch(touched);
      throw err;
    }
    // Ids are freed only once their groups are gone, so no new service port reuses a live group.
    for (const key of released) this.groupIds.release(key);
    await this.flushStaleUdp(next);
    for (const [svcKey, ports] of next) this.record(svcKey, ports);
    for (const listener of this.o.hostListeners ?? []) listener.servicesChanged(hostChanges);
    this.o.serviceGroups?.update(
      [...next].map(([svcKey, ports]) => [svcKey, [...ports.values()].map((p) => p.groupId)] as const),
    );
    this.o.metrics?.servicesInstalled.set(this.portsInstalled);
    this.o.metrics?.endpointsInstalled.set(this.endpointsInstalled);
    if (changes.length > 0)
      this.log.info(
        { changed: changes.length - removed.length, removed: removed.length },
        'Service ports synced',
      );
  }

  /**
   * After the groups changed: deletes the conntrack entries of UDP connections whose endpoint or
   * address went (before record(), which forgets the previous endpoints). A failure is logged, not
   * retried: the entries then time out as they would without the gate.
   */
  private async flushStaleUdp(next: ReadonlyMap<string, ReadonlyMap<string, AppliedPort>>): Promise<void> {
    const flusher = this.o.staleUdpConntrack;
    if (!flusher) return;
    const stale: StaleUdpFlow[] = [];
    for (const [svcKey, ports] of next) {
      for (const [owner, port] of this.applied.get(svcKey) ?? []) {
        if (port.udp) stale.push(...staleUdpFlows(port.udp, ports.get(owner)?.udp));
      }
    }
    if (stale.length === 0) return;
    await flusher
      .flush(stale)
      .then(() => this.log.info({ flows: stale.length }, 'stale UDP Service conntrack entries deleted'))
      .catch((err: unknown) => this.log.warn({ err }, 'deleting stale UDP conntrack entries failed'));
  }

  /** Makes `ports` what is on the switch for one Service, keeping the totals in step. */
  private record(svcKey: string, ports: Map<string, AppliedPort>): void {
    const before = this.applied.get(svcKey);
    this.portsInstalled += ports.size - (before?.size ?? 0);
    this.endpointsInstalled += endpointsOf(ports) - endpointsOf(before);
    if (ports.size > 0) this.applied.set(svcKey, ports);
    else this.applied.delete(svcKey);
  }
}
