import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRACEFLOW_GC_MS } from './routes/traceflows.js';
import { CCP, G, P, SP, startTestSim, type TestSim } from './test-support.js';
import { generateClientCertificate } from './tls/self-signed.js';

let dir: string;
let cert: string;
let cert2: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsx-sim-flows-'));
  cert = (await generateClientCertificate(dir, 'kind-a')).cert;
  cert2 = (await generateClientCertificate(dir, 'kind-b')).cert;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CLUSTER_PATH = '/infra/sites/default/enforcement-points/default/cluster-control-planes/kind-a';
const TF = `${P}/infra/antrea/traceflows`;

/** Registers kind-a, reports its inventory (cluster, namespace, two pods, a service); returns node_id. */
async function registerCluster(sim: TestSim): Promise<string> {
  const nodeId = (await sim.call('PUT', `${CCP}/kind-a`, { certificate: cert })).body.node_id as string;
  const res = await sim.call('POST', `/api/v1/inventory/container/${nodeId}?action=updates`, {
    container_inventory_objects: [
      {
        object_update_type: 'CREATE',
        container_object: { resource_type: 'ContainerCluster', external_id: nodeId },
      },
      {
        object_update_type: 'CREATE',
        container_object: { resource_type: 'ContainerProject', external_id: 'ns-1' },
      },
      ...['pod-src', 'pod-dst'].map((id) => ({
        object_update_type: 'CREATE',
        container_object: {
          resource_type: 'ContainerApplicationInstance',
          external_id: id,
          container_project_id: 'ns-1',
        },
      })),
      {
        object_update_type: 'CREATE',
        container_object: {
          resource_type: 'ContainerApplication',
          external_id: 'svc-1',
          container_project_id: 'ns-1',
        },
      },
    ],
  });
  expect(res.status).toBe(200);
  return nodeId;
}

const tfConfig = (clusterId: string, extra: object = {}) => ({
  container_cluster_id: clusterId,
  source_external_id: 'pod-src',
  destination_external_id: 'pod-dst',
  packet: {
    resource_type: 'FIELDS_PACKET_DATA',
    transport_type: 'UNICAST',
    ip_header: { protocol: 6, ttl: 64 },
    transport_header: { tcp_header: { dst_port: 80, tcp_flags: 2 } },
  },
  ...extra,
});

describe('traceflow lifecycle', () => {
  let sim: TestSim;
  let nodeId: string;
  beforeEach(async () => {
    sim = await startTestSim();
    nodeId = await registerCluster(sim);
  });
  afterEach(async () => {
    await sim.app.close();
  });

  it('PENDING -> picked up by the adapter -> RUNNING -> SUCCEEDED with observations', async () => {
    expect((await sim.call('PUT', `${TF}/tf1`, tfConfig(nodeId))).status).toBe(200);
    expect((await sim.call('GET', `${TF}/tf1/status`)).body).toMatchObject({ phase: 'PENDING' });

    const pending = await sim.call('GET', `/rpc/v1/clusters/kind-a/traceflows?phase=PENDING`);
    expect(pending.body.results).toHaveLength(1);
    expect(pending.body.results[0].config).toMatchObject({ id: 'tf1', source_external_id: 'pod-src' });
    // The same list by cluster UUID; another cluster sees nothing.
    expect((await sim.call('GET', `/rpc/v1/clusters/${nodeId}/traceflows`)).body.result_count).toBe(1);

    expect((await sim.call('POST', `/rpc/v1/clusters/kind-a/traceflows/tf1/start`)).body.phase).toBe(
      'RUNNING',
    );
    expect(
      (await sim.call('GET', `/rpc/v1/clusters/kind-a/traceflows?phase=PENDING`)).body.result_count,
    ).toBe(0);
    expect((await sim.call('GET', `${TF}/tf1/status`)).body.phase).toBe('RUNNING');

    const observations = [
      {
        component_type: 'ANTREA_SPOOFGUARD',
        observation_type: 'AntreaTraceflowObservationForwarded',
        container_node_id: 'n1',
      },
      {
        component_type: 'ANTREA_DFW',
        observation_type: 'AntreaTraceflowObservationForwarded',
        container_node_id: 'n1',
      },
      {
        component_type: 'ANTREA_FORWARDING',
        observation_type: 'AntreaTraceflowObservationDelivered',
        container_node_id: 'n1',
      },
    ];
    const done = await sim.call('POST', `/rpc/v1/clusters/kind-a/traceflows/tf1/result`, {
      phase: 'SUCCEEDED',
      observations,
    });
    expect(done.status).toBe(200);
    expect((await sim.call('GET', `${TF}/tf1/status`)).body).toMatchObject({
      resource_type: 'AntreaTraceflowStatus',
      phase: 'SUCCEEDED',
    });
    const obs = (await sim.call('GET', `${TF}/tf1/observations`)).body;
    expect(obs.result_count).toBe(3);
    expect(obs.results[2]).toMatchObject({
      resource_type: 'AntreaTraceflowObservation',
      component_type: 'ANTREA_FORWARDING',
    });
    // A second result is refused; a retrace resets everything.
    expect(
      (await sim.call('POST', `/rpc/v1/clusters/kind-a/traceflows/tf1/result`, { phase: 'FAILED' })).status,
    ).toBe(400);
    await sim.call('POST', `${TF}/tf1?action=retrace`);
    expect((await sim.call('GET', `${TF}/tf1/status`)).body.phase).toBe('PENDING');
    expect((await sim.call('GET', `${TF}/tf1/observations`)).body.result_count).toBe(0);
  });

  it('validates the config against the inventory and the packet rules', async () => {
    const noPod = await sim.call('PUT', `${TF}/tf2`, tfConfig(nodeId, { source_external_id: 'ghost' }));
    expect(noPod.status).toBe(400);
    expect(noPod.body.error_message).toContain('not a pod of cluster');
    expect((await sim.call('PUT', `${TF}/tf2`, tfConfig('unknown-cluster'))).status).toBe(400);
    expect(
      (await sim.call('PUT', `${TF}/tf2`, tfConfig(nodeId, { destination_external_id: 'svc-1' }))).status,
    ).toBe(200);
    const noSyn = tfConfig(nodeId);
    noSyn.packet.transport_header.tcp_header.tcp_flags = 16;
    expect((await sim.call('PUT', `${TF}/tf3`, noSyn)).body.error_message).toContain('SYN');
    expect((await sim.call('PUT', `${TF}/tf3`, { container_cluster_id: nodeId })).status).toBe(400);
    const badObs = await sim.call('POST', `/rpc/v1/clusters/kind-a/traceflows/tf2/result`, {
      phase: 'SUCCEEDED',
      observations: [{ component_type: 'WARP_DRIVE', observation_type: 'AntreaTraceflowObservationDropped' }],
    });
    expect(badObs.status).toBe(400);
  });

  it('a traceflow belongs to its cluster, is deletable, and is garbage-collected after 2 h idle', async () => {
    await sim.call('PUT', `${CCP}/kind-b`, { certificate: cert2 });
    await sim.call('PUT', `${TF}/tf1`, tfConfig(nodeId));
    expect((await sim.call('GET', `/rpc/v1/clusters/kind-b/traceflows`)).body.result_count).toBe(0);
    expect((await sim.call('POST', `/rpc/v1/clusters/kind-b/traceflows/tf1/start`)).status).toBe(404);
    await sim.call('PUT', `${TF}/tf2`, tfConfig(nodeId));
    expect((await sim.call('DELETE', `${TF}/tf2`)).status).toBe(200);
    expect((await sim.call('GET', `${TF}/tf2/status`)).status).toBe(404);
    sim.clock.advance(TRACEFLOW_GC_MS + 1);
    expect((await sim.call('GET', TF)).body.result_count).toBe(0);
    expect((await sim.call('GET', `${TF}/tf1`)).status).toBe(404);
  });
});

describe('CCP feed, realization and statistics', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim({ seed: true });
    await registerCluster(sim);
  });
  afterEach(async () => {
    await sim.app.close();
  });

  const span = (policy: string) =>
    sim.call('PATCH', `${SP}/${policy}/container-cluster-span/kind-a`, {
      container_cluster_path: CLUSTER_PATH,
    });

  it('the feed lists spanned policies with the groups and services they reference', async () => {
    expect((await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed')).body.security_policies).toEqual([]);
    await sim.call('PATCH', `${G}/api-pods`, {
      group_type: ['ANTREA'],
      expression: [
        {
          resource_type: 'Condition',
          member_type: 'Pod',
          key: 'Tag',
          operator: 'EQUALS',
          value: 'dis:k8s:app|api',
        },
      ],
    });
    await sim.call('PATCH', `${SP}/k8s-core-dns/rules/extra`, {
      source_groups: ['/infra/domains/default/groups/api-pods'],
      services: ['/infra/services/HTTP'],
    });
    expect((await span('k8s-core-dns')).status).toBe(200);
    const feed = (await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed')).body;
    expect(feed.container_cluster_path).toBe(CLUSTER_PATH);
    expect(feed.security_policies.map((p: { id: string }) => p.id)).toEqual(['k8s-core-dns']);
    expect(feed.security_policies[0].rules.map((r: { id: string }) => r.id)).toEqual(['extra', 'allow-dns']);
    expect(feed.security_policies[0].container_cluster_span[0].container_cluster_path).toBe(CLUSTER_PATH);
    expect(feed.groups.map((g: { id: string }) => g.id).sort()).toEqual(['api-pods', 'kube-dns']);
    expect(feed.services.map((s: { id: string }) => s.id).sort()).toEqual(['DNS', 'DNS-UDP', 'HTTP']);
    expect((await sim.call('GET', '/rpc/v1/clusters/nope/policy-feed')).status).toBe(404);
  });

  it('policies applied to Antrea clusters accept only Antrea groups and TCP/UDP destination ports', async () => {
    expect((await span('k8s-core-dns')).status).toBe(200);
    await sim.call('PATCH', `${G}/generic`, {
      expression: [
        {
          resource_type: 'Condition',
          member_type: 'VirtualMachine',
          key: 'Name',
          operator: 'EQUALS',
          value: 'vm1',
        },
      ],
    });
    const generic = await sim.call('PATCH', `${SP}/k8s-core-dns/rules/r2`, {
      source_groups: ['/infra/domains/default/groups/generic'],
    });
    expect(generic.status).toBe(400);
    expect(generic.body.error_message).toContain('not an ANTREA group');
    const literal = await sim.call('PATCH', `${SP}/k8s-core-dns/rules/r2`, {
      destination_groups: ['10.0.0.0/8'],
    });
    expect(literal.status).toBe(400);
    const ipScope = await sim.call('PATCH', `${SP}/k8s-core-dns/rules/r2`, {
      scope: ['/infra/domains/default/groups/corp-net'],
    });
    expect(ipScope.body.error_message).toContain('cannot be used as applied-to');
    await sim.call('PATCH', `${P}/infra/services/src-port`, {
      service_entries: [
        { id: 'e', resource_type: 'L4PortSetServiceEntry', l4_protocol: 'TCP', source_ports: ['1000'] },
      ],
    });
    const svc = await sim.call('PATCH', `${SP}/k8s-core-dns/rules/r2`, {
      services: ['/infra/services/src-port'],
    });
    expect(svc.body.error_message).toContain('destination ports only');
    expect((await sim.call('PATCH', `${SP}/k8s-core-dns`, { category: 'Ethernet' })).status).toBe(400);
    // Spanning an existing policy checks its rules too.
    await sim.call('PATCH', `${SP}/mixed`, {
      rules: [{ id: 'r', source_groups: ['/infra/domains/default/groups/generic'] }],
    });
    const late = await sim.call('PATCH', `${SP}/mixed/container-cluster-span/kind-a`, {
      container_cluster_path: CLUSTER_PATH,
    });
    expect(late.status).toBe(400);
    expect(late.body.error_message).toContain('rule r:');
  });

  it('the feed long-polls until a policy change', async () => {
    const first = (await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed')).body;
    const waiting = sim.call(
      'GET',
      `/rpc/v1/clusters/kind-a/policy-feed?after_generation=${first.policy_generation}&timeout_ms=5000`,
    );
    await sim.call('PATCH', `${CCP}/kind-a/status`, { controller_status: { status: 'UP' } }); // not a policy change
    await span('web-to-db');
    const next = (await waiting).body;
    expect(next.policy_generation).toBeGreaterThan(first.policy_generation);
    expect(next.security_policies.map((p: { id: string }) => p.id)).toEqual(['web-to-db']);
    const timedOut = await sim.call(
      'GET',
      `/rpc/v1/clusters/kind-a/policy-feed?after_generation=${next.policy_generation}&timeout_ms=20`,
    );
    expect(timedOut.body.policy_generation).toBe(next.policy_generation);
    // Category precedence before sequence_number: Emergency (seq 50) comes before Application (seq 20).
    await sim.call('PATCH', `${SP}/urgent`, { category: 'Emergency', sequence_number: 50 });
    await span('urgent');
    const both = (await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed')).body;
    expect(both.security_policies.map((p: { id: string }) => p.id)).toEqual(['urgent', 'web-to-db']);
  });

  it('realization: IN_PROGRESS until the cluster reports the current revision, ERROR carries messages', async () => {
    await span('web-to-db');
    const status = () =>
      sim.call(
        'GET',
        `${P}/infra/realized-state/status?intent_path=/infra/domains/default/security-policies/web-to-db`,
      );
    const s0 = (await status()).body;
    expect(s0.consolidated_status.consolidated_status).toBe('IN_PROGRESS');
    expect(s0.consolidated_status_per_enforcement_point[0].consolidated_status_per_container_cluster).toEqual(
      [expect.objectContaining({ container_cluster_path: CLUSTER_PATH, status: 'IN_PROGRESS' })],
    );
    const rev = (await sim.call('GET', `${SP}/web-to-db`)).body._revision;
    const report = (state: string, extra: object = {}) =>
      sim.call('POST', '/rpc/v1/clusters/kind-a/realization', {
        results: [
          {
            intent_path: '/infra/domains/default/security-policies/web-to-db',
            intent_revision: rev,
            state,
            ...extra,
          },
        ],
      });
    expect((await report('SUCCESS', { current_nodes_realized: 2, desired_nodes_realized: 2 })).status).toBe(
      200,
    );
    const s1 = (await status()).body;
    expect(s1.consolidated_status.consolidated_status).toBe('SUCCESS');
    expect(
      s1.consolidated_status_per_enforcement_point[0].consolidated_status_per_container_cluster[0],
    ).toMatchObject({
      current_nodes_realized: 2,
      intent_version: rev,
    });
    // A new revision makes the old report stale.
    await sim.call('PATCH', `${SP}/web-to-db`, { description: 'changed' });
    expect((await status()).body.consolidated_status.consolidated_status).toBe('IN_PROGRESS');
    await sim.call('POST', '/rpc/v1/clusters/kind-a/realization', {
      results: [
        {
          intent_path: '/infra/domains/default/security-policies/web-to-db',
          intent_revision: rev + 1,
          state: 'ERROR',
          errors: [{ error_message: 'ClusterGroup not found' }],
        },
      ],
    });
    const s2 = (await status()).body;
    expect(s2.consolidated_status.consolidated_status).toBe('ERROR');
    expect(
      s2.consolidated_status_per_enforcement_point[0].consolidated_status_per_container_cluster[0].errors,
    ).toEqual([{ error_message: 'ClusterGroup not found' }]);
    const unknown = await sim.call('POST', '/rpc/v1/clusters/kind-a/realization', {
      results: [{ intent_path: '/infra/domains/default/security-policies/none', state: 'SUCCESS' }],
    });
    expect(unknown.status).toBe(400);
    expect((await sim.call('GET', `${P}/infra/realized-state/status`)).status).toBe(400);
  });

  it('statistics pushed by rule_id or path come back in the NSX shapes', async () => {
    await span('web-to-db');
    const policy = (await sim.call('GET', `${SP}/web-to-db`)).body;
    const [r1, r2] = policy.rules;
    const push = await sim.call('POST', '/rpc/v1/clusters/kind-a/statistics', {
      rule_statistics: [
        { rule_id: r1.rule_id, packet_count: 10, byte_count: 1000, session_count: 2 },
        { rule_path: r2.path, packet_count: 3, byte_count: 300, session_count: 1 },
        { rule_id: 999999, packet_count: 1 },
      ],
    });
    expect(push.body).toEqual({ accepted: 2, ignored: [expect.objectContaining({ rule_id: 999999 })] });
    const stats = (await sim.call('GET', `${SP}/web-to-db/statistics?container_cluster_path=${CLUSTER_PATH}`))
      .body;
    expect(stats.results).toHaveLength(1);
    expect(stats.results[0]).toMatchObject({
      container_cluster_path: CLUSTER_PATH,
      enforcement_point: '/infra/sites/default/enforcement-points/default',
      statistics: { internal_section_id: policy.unique_id, result_count: 3 },
    });
    expect(stats.results[0].statistics.results[0]).toMatchObject({
      rule: r1.path,
      internal_rule_id: String(r1.rule_id),
      packet_count: 10,
      byte_count: 1000,
      session_count: 2,
      hit_count: 10,
    });
    expect(stats.results[0].statistics.results[2]).toMatchObject({ packet_count: 0 });
    const rule = (await sim.call('GET', `${SP}/web-to-db/rules/${r2.id}/statistics`)).body;
    expect(rule.results[0].statistics).toMatchObject({ rule: r2.path, packet_count: 3 });
    expect(
      (await sim.call('GET', `${SP}/web-to-db/statistics?container_cluster_path=/elsewhere`)).body.results,
    ).toEqual([]);
    expect(
      (
        await sim.call('POST', '/rpc/v1/clusters/kind-a/statistics', {
          rule_statistics: [{ packet_count: 1 }],
        })
      ).status,
    ).toBe(400);
  });
});

describe('support bundles', () => {
  it('collect -> adapter uploads an archive -> COMPLETED and downloadable; one request per cluster at a time', async () => {
    const sim = await startTestSim();
    const nodeId = await registerCluster(sim);
    const collect = (clusterId: string, nodes: string[] = ['n1']) =>
      sim.call('POST', '/api/v1/administration/support-bundles?action=collect', {
        container_nodes: [{ container_type: 'ANTREA', clusters: [{ cluster_id: clusterId, nodes }] }],
        log_age_limit: 7,
      });
    const req = await collect(nodeId);
    expect(req.status).toBe(202);
    expect(req.body).toMatchObject({
      status: 'PENDING',
      clusters: [{ cluster_id: nodeId, nodes: ['n1'], status: 'PENDING' }],
    });
    const busy = await collect(nodeId);
    expect(busy.status).toBe(409);
    expect((await collect('nope')).status).toBe(400);
    expect(
      (
        await collect(
          nodeId,
          Array.from({ length: 201 }, (_, i) => `n${i}`),
        )
      ).status,
    ).toBe(400);

    const todo = (await sim.call('GET', '/rpc/v1/clusters/kind-a/support-bundle-requests?status=PENDING'))
      .body;
    expect(todo.results).toEqual([
      expect.objectContaining({ request_id: req.body.request_id, log_age_limit: 7 }),
    ]);
    const id = req.body.request_id;
    await sim.call('POST', `/rpc/v1/clusters/kind-a/support-bundle-requests/${id}/start`);
    expect(
      (await sim.call('GET', `/api/v1/administration/support-bundles/container-requests/${id}`)).body.status,
    ).toBe('RUNNING');
    const archive = Buffer.from([0x1f, 0x8b, 1, 2, 3, 4]);
    const up = await sim.app.inject({
      method: 'PUT',
      url: `/rpc/v1/clusters/kind-a/support-bundle-requests/${id}/archive`,
      payload: archive,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(up.statusCode).toBe(200);
    const done = (await sim.call('GET', `/api/v1/administration/support-bundles/container-requests/${id}`))
      .body;
    expect(done).toMatchObject({ status: 'COMPLETED', clusters: [{ status: 'COMPLETED', archive_size: 6 }] });
    const dl = await sim.app.inject({
      method: 'GET',
      url: `/api/v1/administration/support-bundles/container-requests/${id}/clusters/${nodeId}/archive`,
    });
    expect(dl.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.compare(dl.rawPayload, archive)).toBe(0);
    // Finished: a new request is accepted; failure is reported with a message.
    const second = await collect(nodeId);
    expect(second.status).toBe(202);
    await sim.call(
      'POST',
      `/rpc/v1/clusters/${nodeId}/support-bundle-requests/${second.body.request_id}/result`,
      {
        status: 'FAILED',
        error_message: 'controller unreachable',
      },
    );
    const failed = (
      await sim.call(
        'GET',
        `/api/v1/administration/support-bundles/container-requests/${second.body.request_id}`,
      )
    ).body;
    expect(failed).toMatchObject({
      status: 'FAILED',
      clusters: [{ error_message: 'controller unreachable' }],
    });
    await sim.app.close();
  });
});

describe('/sim admin API', () => {
  it('exposes state and the request journal, waits for conditions, resets', async () => {
    const sim = await startTestSim();
    await registerCluster(sim);
    const journal = (await sim.call('GET', '/sim/requests')).body.results;
    expect(journal.map((e: { method: string; status: number }) => `${e.method} ${e.status}`)).toEqual([
      'PUT 200',
      'POST 200',
    ]);
    expect(journal[1].url).toContain('/api/v1/inventory/container/');

    const waiting = sim.call('POST', '/sim/wait', {
      condition: { type: 'heartbeat', cluster: 'kind-a', status: 'HEALTHY' },
      timeout_ms: 5000,
    });
    await sim.call('PATCH', `${CCP}/kind-a/status`, {
      controller_status: { status: 'UP' },
      mp_adapter_status: { status: 'UP' },
      ccp_adapter_status: { status: 'UP' },
    });
    expect((await waiting).body.satisfied).toBe(true);
    const timeout = await sim.call('POST', '/sim/wait', {
      condition: { type: 'object', path: '/infra/domains/default/groups/never' },
      timeout_ms: 20,
    });
    expect(timeout.status).toBe(408);
    expect(timeout.body.error_message).toContain('not met');
    expect(
      (
        await sim.call('POST', '/sim/wait', {
          condition: { type: 'inventory', resource_type: 'ContainerApplicationInstance', count: 2 },
        })
      ).status,
    ).toBe(200);

    const state = (await sim.call('GET', '/sim/state')).body;
    expect(Object.keys(state.state.policy)).toContain(CLUSTER_PATH);
    expect((await sim.call('POST', '/sim/reset', { seed: true })).status).toBe(200);
    const after = (await sim.call('GET', '/sim/state')).body.state;
    expect(after.policy[CLUSTER_PATH]).toBeUndefined();
    expect(after.policy['/infra/domains/default/security-policies/web-to-db']).toBeDefined();
    expect((await sim.call('GET', '/sim/requests')).body.results).toEqual([]);
    await sim.app.close();
  });
});
