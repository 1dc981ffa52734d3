import { gunzipSync } from 'node:zlib';
import { tarGz } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { clusterInfo } from './cluster-health.js';
import { nsxRuleStatistics } from './statistics.js';
import {
  traceflowFromNsx,
  traceflowName,
  traceflowResultToNsx,
  type UidLookup,
} from './traceflow-translate.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const at = (agoMs: number) => new Date(NOW - agoMs).toISOString();
const up = { status: 'UP' as const, conditions: [] };

describe('cluster health', () => {
  it('controller, agents and adapters from monitoring CRs', () => {
    const agent = (name: string, conds: [string, string, number][]) =>
      ({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'AntreaAgentInfo',
        metadata: { name },
        agentConditions: conds.map(([type, status, ago]) => ({ type, status, lastHeartbeatTime: at(ago) })),
      }) as never;
    const info = clusterInfo(
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'AntreaControllerInfo',
        metadata: { name: 'antrea-controller' },
        connectedAgentNum: 3,
        controllerConditions: [{ type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: at(30_000) }],
      },
      [
        agent('ok', [
          ['AgentHealthy', 'True', 10_000],
          ['OVSDBConnectionUp', 'True', 10_000],
        ]),
        agent('degraded', [
          ['AgentHealthy', 'True', 10_000],
          ['OpenflowConnectionUp', 'False', 10_000],
        ]),
        agent('stale', [['AgentHealthy', 'True', 10 * 60_000]]),
        agent('none', []),
      ],
      up,
      { status: 'DEGRADED', conditions: [{ type: 'NSXConnectionUp', status: 'FALSE' }] },
      NOW,
    );
    expect(info).toMatchObject({
      controller_status: { status: 'UP', connected_agent_num: 3 },
      mp_adapter_status: { status: 'UP' },
      ccp_adapter_status: { status: 'DEGRADED', conditions: [{ type: 'NSXConnectionUp', status: 'FALSE' }] },
      agent_info: { healthy_agent_num: 1, degraded_agent_num: 1, failed_agent_num: 2 },
    });
    expect(clusterInfo(undefined, [], up, up, NOW)).toMatchObject({
      controller_status: { status: 'DOWN', connected_agent_num: 0 },
    });
    const stale = clusterInfo(
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'AntreaControllerInfo',
        metadata: {},
        controllerConditions: [
          { type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: at(4 * 60_000) },
        ],
      },
      [],
      up,
      up,
      NOW,
    );
    expect(stale).toMatchObject({ controller_status: { status: 'DOWN' } });
  });
});

describe('statistics', () => {
  it('maps ACNP rule stats to NSX rule ids, sums split rules, skips unmanaged policies', () => {
    const managed = new Map([
      [
        'uid-p',
        {
          metadata: {
            name: 'uid-p',
            annotations: { 'ccp-adapter.antrea.tanzu.vmware.com/nsx-path': '/infra/x' },
          },
        },
      ],
    ]);
    const t = (packets: number) => ({ packets, bytes: packets * 100, sessions: 1 });
    expect(
      nsxRuleStatistics(
        [
          {
            name: 'uid-p',
            ruleTrafficStats: [
              { name: '1001', trafficStats: t(5) },
              { name: '1002-in', trafficStats: t(2) },
              { name: '1002-out', trafficStats: t(3) },
              { name: 'hand-named', trafficStats: t(9) },
            ],
          },
          { name: 'hand-made', ruleTrafficStats: [{ name: '1003', trafficStats: t(7) }] },
        ],
        managed,
      ),
    ).toEqual([
      { rule_id: 1001, packet_count: 5, byte_count: 500, session_count: 1 },
      { rule_id: 1002, packet_count: 5, byte_count: 500, session_count: 2 },
    ]);
  });
});

describe('traceflow translation', () => {
  const lookup: UidLookup = {
    pod: (uid) =>
      ({ 'pod-a': { namespace: 'shop', name: 'a' }, 'pod-b': { namespace: 'shop', name: 'b' } })[uid],
    service: (uid) => (uid === 'svc-web' ? { namespace: 'shop', name: 'web' } : undefined),
    nodeUid: (name) => (name === 'n1' ? 'node-uid-1' : undefined),
  };
  const packet = {
    resource_type: 'FIELDS_PACKET_DATA',
    ip_header: { protocol: 6, ttl: 64, dst_ip: '10.0.0.9' },
    transport_header: { tcp_header: { src_port: 1234, dst_port: 80, tcp_flags: 2 } },
  };
  it('NSX config -> Traceflow CR with pod, service or IP destination', () => {
    expect(
      traceflowFromNsx(
        { id: 'TF_1', source_external_id: 'pod-a', destination_external_id: 'pod-b', packet },
        lookup,
      ),
    ).toEqual({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: {
        name: 'nsx-tf-1',
        labels: { 'ccp-adapter.antrea.tanzu.vmware.com/managedBy': 'mp-adapter' },
      },
      spec: {
        source: { namespace: 'shop', pod: 'a' },
        destination: { namespace: 'shop', pod: 'b' },
        packet: {
          ipHeader: { protocol: 6, ttl: 64 },
          transportHeader: { tcp: { srcPort: 1234, dstPort: 80, flags: 2 } },
        },
      },
    });
    expect(
      traceflowFromNsx(
        { id: 't', source_external_id: 'pod-a', destination_external_id: 'svc-web', packet },
        lookup,
      ).spec.destination,
    ).toEqual({ namespace: 'shop', service: 'web' });
    expect(
      traceflowFromNsx({ id: 't', source_external_id: 'pod-a', packet }, lookup).spec.destination,
    ).toEqual({ ip: '10.0.0.9' });
    expect(() => traceflowFromNsx({ id: 't', source_external_id: 'ghost', packet }, lookup)).toThrow(
      /not a Pod/,
    );
    expect(traceflowName('A b/C')).toBe('nsx-a-b-c');
  });
  it('Traceflow status -> NSX observations', () => {
    expect(
      traceflowResultToNsx(
        {
          phase: 'Succeeded',
          results: [
            {
              node: 'n1',
              timestamp: 1700000000,
              observations: [
                { component: 'SpoofGuard', action: 'Forwarded' },
                { component: 'NetworkPolicy', action: 'Rejected', networkPolicy: 'x' },
                { component: 'Forwarding', action: 'Delivered' },
              ],
            },
          ],
        },
        lookup,
      ).observations,
    ).toEqual([
      {
        component_type: 'ANTREA_SPOOFGUARD',
        observation_type: 'AntreaTraceflowObservationForwarded',
        container_node_id: 'node-uid-1',
        timestamp: 1700000000000,
      },
      {
        component_type: 'ANTREA_DFW',
        observation_type: 'AntreaTraceflowObservationDropped',
        container_node_id: 'node-uid-1',
        timestamp: 1700000000000,
      },
      {
        component_type: 'ANTREA_FORWARDING',
        observation_type: 'AntreaTraceflowObservationDelivered',
        container_node_id: 'node-uid-1',
        timestamp: 1700000000000,
      },
    ]);
    expect(traceflowResultToNsx({ phase: 'Failed', reason: 'timeout' }, lookup)).toMatchObject({
      phase: 'FAILED',
      reason: 'timeout',
      observations: [],
    });
  });
});

describe('tar', () => {
  it('writes a ustar archive that tar tools can read', () => {
    const raw = gunzipSync(
      tarGz([
        { name: 'manifest.json', data: '{"a":1}', mtime: 1_700_000_000 },
        { name: 'dir/x.txt', data: Buffer.alloc(600, 'x'), mtime: 1_700_000_000 },
      ]),
    );
    expect(raw.length).toBe(512 + 512 + 512 + 1024 + 1024);
    expect(raw.subarray(0, 13).toString()).toBe('manifest.json');
    expect(raw.subarray(257, 262).toString()).toBe('ustar');
    // Header checksum is the byte sum with the checksum field read as spaces.
    const h = Buffer.from(raw.subarray(0, 512));
    const stored = Number.parseInt(h.subarray(148, 154).toString(), 8);
    h.fill(' ', 148, 156);
    expect(stored).toBe(h.reduce((s, b) => s + b, 0));
    expect(raw.subarray(512, 519).toString()).toBe('{"a":1}');
  });
});
