import type { AntreaControllerInfo } from '@antrea-ts/apis';
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RamStore } from '../store/ram-store.js';
import { namespace, networkPolicy, pod } from '../testing/fixtures.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';
import { type ControllerInfoClient, ControllerInfoReporter } from './controller-info.js';
import { ControllerMetrics } from './controller-metrics.js';
import { TimedPolicyEngine } from './timed-engine.js';

const logger = pino({ level: 'silent' });

class FakeClient implements ControllerInfoClient {
  stored: AntreaControllerInfo | undefined;
  writes: string[] = [];
  async get(): Promise<AntreaControllerInfo | undefined> {
    return this.stored && structuredClone(this.stored);
  }
  async create(info: AntreaControllerInfo): Promise<void> {
    this.writes.push('create');
    this.stored = { ...info, metadata: { ...info.metadata, resourceVersion: '1' } };
  }
  async replace(info: AntreaControllerInfo): Promise<void> {
    if (info.metadata?.resourceVersion !== this.stored?.metadata?.resourceVersion)
      throw new Error('conflict');
    this.writes.push('replace');
    this.stored = {
      ...info,
      metadata: { ...info.metadata, resourceVersion: String(Number(info.metadata?.resourceVersion) + 1) },
    };
  }
}

describe('ControllerInfoReporter', () => {
  it('creates AntreaControllerInfo, then replaces it with current counts and heartbeat', async () => {
    let t = Date.UTC(2026, 0, 1, 0, 0, 0);
    let nps = 1;
    let healthy = false;
    const client = new FakeClient();
    const r = new ControllerInfoReporter({
      logger,
      client,
      clock: { now: () => new Date(t), monotonicMs: () => 0 },
      source: {
        version: 'v1',
        podRef: { name: 'antrea-controller-x', namespace: 'kube-system' },
        nodeName: 'n1',
        service: { name: 'antrea', namespace: 'kube-system' },
        apiPort: 10349,
        counts: () => ({ networkPolicies: nps, addressGroups: 2, appliedToGroups: 3 }),
        connectedAgents: () => 7,
        healthy: () => healthy,
      },
    });
    await r.sync();
    expect(client.stored).toMatchObject({
      metadata: { name: 'antrea-controller' },
      version: 'v1',
      podRef: { kind: 'Pod', name: 'antrea-controller-x', namespace: 'kube-system' },
      nodeRef: { kind: 'Node', name: 'n1' },
      serviceRef: { kind: 'Service', name: 'antrea', namespace: 'kube-system' },
      networkPolicyControllerInfo: { networkPolicyNum: 1, addressGroupNum: 2, appliedToGroupNum: 3 },
      connectedAgentNum: 7,
      controllerConditions: [
        { type: 'ControllerHealthy', status: 'False', lastHeartbeatTime: '2026-01-01T00:00:00Z' },
      ],
      apiPort: 10349,
    });
    t += 60_000;
    nps = 5;
    healthy = true;
    await r.sync();
    expect(client.writes).toEqual(['create', 'replace']);
    expect(client.stored).toMatchObject({
      networkPolicyControllerInfo: { networkPolicyNum: 5 },
      controllerConditions: [{ status: 'True', lastHeartbeatTime: '2026-01-01T00:01:00Z' }],
    });
  });
});

describe('ControllerMetrics', () => {
  it('exposes sync durations, processed objects, queue lengths and scrape-time gauges', async () => {
    const registry = new Registry();
    const m = new ControllerMetrics(registry, {
      counts: () => ({ networkPolicies: 4, addressGroups: 5, appliedToGroups: 6 }),
      watchers: () => ({ networkpolicies: 2 }),
      connectedAgents: () => 2,
      pendingChanges: () => true,
      queueLengths: () => ({ networkPolicies: 7, appliedToGroups: 8, addressGroups: 9 }),
    });
    m.recordFlush(0.02, {
      translatedPolicies: 1,
      syncedAppliedToGroups: 2,
      syncedPolicies: 3,
      syncedAddressGroups: 0,
      deletedGroups: 0,
      appliedToGroupSyncMs: 4,
      networkPolicySyncMs: 12,
      addressGroupSyncMs: 0,
    });
    const text = await registry.metrics();
    expect(text).toContain('antrea_controller_network_policy_sync_duration_seconds_count{phase="flush"} 1');
    expect(text).toContain('antrea_controller_network_policy_processed 3');
    expect(text).toContain('antrea_controller_applied_to_group_processed 2');
    expect(text).toContain('antrea_controller_address_group_processed 0');
    expect(text).toContain('antrea_controller_network_policy_sync_duration_milliseconds_sum 12');
    expect(text).toContain('antrea_controller_network_policy_sync_duration_milliseconds_count 1');
    expect(text).toContain('antrea_controller_applied_to_group_sync_duration_milliseconds_bucket{le="5"} 1');
    // A pass that synced no AddressGroup is no AddressGroup sync.
    expect(text).toContain('antrea_controller_address_group_sync_duration_milliseconds_count 0');
    expect(text).toContain('antrea_controller_length_network_policy_queue 7');
    expect(text).toContain('antrea_controller_length_applied_to_group_queue 8');
    expect(text).toContain('antrea_controller_length_address_group_queue 9');
    expect(text).toContain('antrea_controller_objects{kind="appliedtogroup"} 6');
    expect(text).toContain('antrea_controller_watchers{resource="networkpolicies"} 2');
    expect(text).toContain('antrea_controller_connected_agents 2');
    expect(text).toContain('antrea_controller_pending_changes 1');
  });

  it('measures the real engine: marked objects queue until the pass, each kind of sync is timed', async () => {
    const networkPolicies = new RamStore<InternalNetworkPolicy>('NetworkPolicy');
    const appliedToGroups = new RamStore<InternalAppliedToGroup>('AppliedToGroup');
    const addressGroups = new RamStore<InternalAddressGroup>('AddressGroup');
    const engine = new TimedPolicyEngine({ networkPolicies, appliedToGroups, addressGroups });
    let t = 0;
    engine.now = () => (t += 2); // every reading 2 ms later
    const registry = new Registry();
    const m = new ControllerMetrics(registry, {
      counts: () => ({ networkPolicies: 0, addressGroups: 0, appliedToGroups: 0 }),
      watchers: () => ({}),
      connectedAgents: () => 0,
      pendingChanges: () => engine.pending,
      queueLengths: () => engine.queueLengths(),
    });
    engine.onFlush = (seconds, stats) => m.recordFlush(seconds, stats);
    engine.upsertNamespace(namespace('x'));
    engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n1', ip: '10.0.1.1' }));
    engine.upsertPod(pod('x', 'b', { app: 'b' }, { node: 'n1', ip: '10.0.1.2' }));
    engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'np', {
        podSelector: { matchLabels: { app: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
      }),
    );
    expect(engine.queueLengths()).toEqual({ networkPolicies: 1, appliedToGroups: 0, addressGroups: 0 });
    engine.flush();
    expect(engine.queueLengths()).toEqual({ networkPolicies: 0, appliedToGroups: 0, addressGroups: 0 });
    const text = await registry.metrics();
    expect(text).toContain('antrea_controller_network_policy_processed 1');
    expect(text).toContain('antrea_controller_applied_to_group_processed 1');
    expect(text).toContain('antrea_controller_address_group_processed 1');
    for (const kind of ['network_policy', 'applied_to_group', 'address_group']) {
      expect(text).toContain(`antrea_controller_${kind}_sync_duration_milliseconds_count 1`);
      const sum = Number(
        new RegExp(`antrea_controller_${kind}_sync_duration_milliseconds_sum (\\S+)`).exec(text)?.[1],
      );
      expect(sum).toBeGreaterThanOrEqual(2);
    }
    expect(text).toContain('antrea_controller_length_network_policy_queue 0');
  });
});
