import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FlushStats, QueueLengths } from '../compute/engine.js';

/** Sources the gauges read at scrape time (no timers, no stale values). */
export interface ControllerMetricSources {
  counts(): { networkPolicies: number; addressGroups: number; appliedToGroups: number };
  /** Open watches per controlplane resource. */
  watchers(): Record<string, number>;
  connectedAgents(): number;
  /** Changes indexed but not yet computed (the compute core's queue). */
  pendingChanges(): boolean;
  /** Objects marked for the next computation pass, by kind. */
  queueLengths(): QueueLengths;
}

/** Sync phase durations are in milliseconds, as Antrea's; its buckets are Prometheus' defaults (0.005..10). */
const SYNC_MS_BUCKETS = [1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 30000];

/**
 * antrea-controller's own Prometheus metrics, next to the API server's (requests, watch bytes,
 * queue depths, closed watchers). Names follow Antrea's pkg/controller/metrics where it has one.
 */
export class ControllerMetrics {
  readonly syncDuration: Histogram<'phase'>;
  readonly policiesProcessed: Counter;
  readonly appliedToGroupsProcessed: Counter;
  readonly addressGroupsProcessed: Counter;
  readonly policySyncMs: Histogram;
  readonly appliedToGroupSyncMs: Histogram;
  readonly addressGroupSyncMs: Histogram;
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
    // Antrea's per-kind metrics (pkg/controller/metrics). A "sync" of a kind here is the phase of a
    // computation pass that syncs every marked object of that kind, so the *_processed counters
    // count objects and the *_sync_duration histograms one observation per pass and kind.
    this.policiesProcessed = new Counter({
      name: 'antrea_controller_network_policy_processed',
      help: 'The total number of internal-networkpolicy processed',
      registers: [registry],
    });
    this.appliedToGroupsProcessed = new Counter({
      name: 'antrea_controller_applied_to_group_processed',
      help: 'The total number of applied-to-group processed',
      registers: [registry],
    });
    this.addressGroupsProcessed = new Counter({
      name: 'antrea_controller_address_group_processed',
      help: 'The total number of address-group processed',
      registers: [registry],
    });
    this.policySyncMs = new Histogram({
      name: 'antrea_controller_network_policy_sync_duration_milliseconds',
      help: 'The duration of syncing internal-networkpolicy (one computation pass phase)',
      buckets: SYNC_MS_BUCKETS,
      registers: [registry],
    });
    this.appliedToGroupSyncMs = new Histogram({
      name: 'antrea_controller_applied_to_group_sync_duration_milliseconds',
      help: 'The duration of syncing applied-to-group (one computation pass phase)',
      buckets: SYNC_MS_BUCKETS,
      registers: [registry],
    });
    this.addressGroupSyncMs = new Histogram({
      name: 'antrea_controller_address_group_sync_duration_milliseconds',
      help: 'The duration of syncing address-group (one computation pass phase)',
      buckets: SYNC_MS_BUCKETS,
      registers: [registry],
    });
    new Gauge({
      name: 'antrea_controller_length_network_policy_queue',
      help: 'The length of InternalNetworkPolicyQueue (policies marked for the next pass)',
      registers: [registry],
      collect() {
        this.set(sources.queueLengths().networkPolicies);
      },
    });
    new Gauge({
      name: 'antrea_controller_length_applied_to_group_queue',
      help: 'The length of AppliedToGroupQueue (groups marked for the next pass)',
      registers: [registry],
      collect() {
        this.set(sources.queueLengths().appliedToGroups);
      },
    });
    new Gauge({
      name: 'antrea_controller_length_address_group_queue',
      help: 'The length of AddressGroupQueue (groups marked for the next pass)',
      registers: [registry],
      collect() {
        this.set(sources.queueLengths().addressGroups);
      },
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
    this.policiesProcessed.inc(stats.syncedPolicies);
    this.appliedToGroupsProcessed.inc(stats.syncedAppliedToGroups);
    this.addressGroupsProcessed.inc(stats.syncedAddressGroups);
    // A phase that synced nothing is no sync (Antrea observes only when a worker processed a key).
    if (stats.syncedPolicies > 0) this.policySyncMs.observe(stats.networkPolicySyncMs);
    if (stats.syncedAppliedToGroups > 0) this.appliedToGroupSyncMs.observe(stats.appliedToGroupSyncMs);
    if (stats.syncedAddressGroups > 0) this.addressGroupSyncMs.observe(stats.addressGroupSyncMs);
  }
}
