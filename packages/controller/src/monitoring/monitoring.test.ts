import type { AntreaControllerInfo } from '@antrea-ts/apis';
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type ControllerInfoClient, ControllerInfoReporter } from './controller-info.js';
import { ControllerMetrics } from './controller-metrics.js';

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
  it('exposes sync durations, synced objects and scrape-time gauges', async () => {
    const registry = new Registry();
    const m = new ControllerMetrics(registry, {
      counts: () => ({ networkPolicies: 4, addressGroups: 5, appliedToGroups: 6 }),
      watchers: () => ({ networkpolicies: 2 }),
      connectedAgents: () => 2,
      pendingChanges: () => true,
    });
    m.recordFlush(0.02, {
      translatedPolicies: 1,
      syncedAppliedToGroups: 2,
      syncedPolicies: 3,
      syncedAddressGroups: 4,
      deletedGroups: 0,
    });
    const text = await registry.metrics();
    expect(text).toContain('antrea_controller_network_policy_sync_duration_seconds_count{phase="flush"} 1');
    expect(text).toContain('antrea_controller_synced_objects_total{kind="addressgroup"} 4');
    expect(text).toContain('antrea_controller_objects{kind="appliedtogroup"} 6');
    expect(text).toContain('antrea_controller_watchers{resource="networkpolicies"} 2');
    expect(text).toContain('antrea_controller_connected_agents 2');
    expect(text).toContain('antrea_controller_pending_changes 1');
  });
});
