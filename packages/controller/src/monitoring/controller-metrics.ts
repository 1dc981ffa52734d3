import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FlushStats } from '../compute/engine.js';

/** Sources the gauges read at scrape time (no timers, no stale values). */
export interface ControllerMetricSources {
  counts(): { networkPolicies: number; addressGroups: number; appliedToGroups: number };
  /** Open watches per controlplane resource. */
  watchers(): Record<string, number>;
  connectedAgents(): number;
  /** Changes indexed but not yet computed (the compute core's queue). */
  pendingChanges(): boolean;
}

/**
 * antrea-controller's own Prometheus metrics, next to the API server's (requests, watch bytes,
 * queue depths, closed watchers). Names follow Antrea's pkg/controller/metrics where it has one.
 */
export class ControllerMetrics {
  readonly syncDuration: Histogram<'phase'>;
  readonly synced: Counter<'kind'>;
  readonly eventsSent: Counter<'resource'>;
  readonly fanoutDuration: Histogram<'resource'>;

  constructor(registry: Registry, sources: ControllerMetricSources) {
    this.syncDuration = new Histogram({
      name: 'antrea_controller_network_policy_sync_duration_seconds',
      help: 'Duration of one computation pass (informer events to stored objects)',
      labelNames: ['phase'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30],
      registers: [registry],
    });
    this.synced = new Counter({
      name: 'antrea_controller_synced_objects_total',
      help: 'Internal objects recomputed, by kind',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.eventsSent = new Counter({
      name: 'antrea_controller_watch_events_total',
      help: 'Watch events queued to agents, by resource (one per watcher per change)',
      labelNames: ['resource'],
      registers: [registry],
    });
    this.fanoutDuration = new Histogram({
      name: 'antrea_controller_watch_fanout_duration_seconds',
      help: 'Time to convert one store change and queue it to every interested watcher',
      labelNames: ['resource'],
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5],
      registers: [registry],
    });
    new Gauge({
      name: 'antrea_controller_objects',
      help: 'Internal NetworkPolicies, AddressGroups and AppliedToGroups in the stores',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        const c = sources.counts();
        this.set({ kind: 'networkpolicy' }, c.networkPolicies);
        this.set({ kind: 'addressgroup' }, c.addressGroups);
        this.set({ kind: 'appliedtogroup' }, c.appliedToGroups);
      },
    });
    new Gauge({
      name: 'antrea_controller_watchers',
      help: 'Open controlplane watches, by resource',
      labelNames: ['resource'],
      registers: [registry],
      collect() {
        for (const [resource, n] of Object.entries(sources.watchers())) this.set({ resource }, n);
      },
    });
    new Gauge({
      name: 'antrea_controller_connected_agents',
      help: 'Nodes with at least one open controlplane watch',
      registers: [registry],
      collect() {
        this.set(sources.connectedAgents());
      },
    });
    new Gauge({
      name: 'antrea_controller_pending_changes',
      help: '1 while informer changes wait for the next computation pass (compute queue depth)',
      registers: [registry],
      collect() {
        this.set(sources.pendingChanges() ? 1 : 0);
      },
    });
  }

  recordFlush(seconds: number, stats: FlushStats): void {
    this.syncDuration.observe({ phase: 'flush' }, seconds);
    this.synced.inc({ kind: 'networkpolicy' }, stats.syncedPolicies);
    this.synced.inc({ kind: 'appliedtogroup' }, stats.syncedAppliedToGroups);
    this.synced.inc({ kind: 'addressgroup' }, stats.syncedAddressGroups);
  }
}
