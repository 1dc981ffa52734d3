import type { AntreaAgentInfo, Traceflow } from '@antrea-ts/apis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterReader } from './cluster-reader.js';
import { Dashboard, type DashboardControllerView } from './dashboard.js';
import { DashboardError, ErrorCodes } from './errors.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

// In-memory stand-ins for kube-apiserver and the controller; the real ones are in test/dashboard.
function fakeCluster(): ClusterReader & { created: Traceflow[]; fail?: boolean } {
  const created: Traceflow[] = [];
  const agent: AntreaAgentInfo = {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'AntreaAgentInfo',
    metadata: { name: '<n1>' },
    agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: '2026-11-21T11:59:30Z' }],
  };
  const self = {
    created,
    fail: false,
    agentInfos: async () => {
      if (self.fail) throw new DashboardError(ErrorCodes.KUBE_REQUEST_FAILED, 'antreaagentinfos: forbidden');
      return [agent];
    },
    clusterNetworkPolicies: async () => [
      {
        apiVersion: 'crd.antrea.io/v1beta1' as const,
        kind: 'ClusterNetworkPolicy' as const,
        metadata: { name: 'drop-b', uid: 'u1' },
        spec: { priority: 1, ingress: [{ action: 'Drop' as const, name: 'r1' }] },
        status: {
          phase: 'Realized' as const,
          observedGeneration: 1,
          currentNodesRealized: 1,
          desiredNodesRealized: 1,
        },
      },
    ],
    antreaNetworkPolicies: async () => [],
    k8sNetworkPolicies: async () => [],
    traceflows: async () => created,
    traceflow: async (name: string) => created.find((t) => t.metadata.name === name),
    createTraceflow: async (tf: Traceflow) => {
      const out = { ...tf, metadata: { name: `${tf.metadata.generateName}abcde` } };
      created.push(out);
      return out;
    },
  };
  return self;
}

const controller: DashboardControllerView = {
  controllerInfo: {
    current: () => ({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'AntreaControllerInfo',
      metadata: { name: 'antrea-controller' },
      version: 'v-test',
      controllerConditions: [
        { type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: '2026-11-21T12:00:00Z' },
      ],
    }),
  },
  stats: {
    list: (res) =>
      res.type === 'AntreaClusterNetworkPolicy'
        ? {
            items: [
              {
                metadata: { uid: 'u1' },
                trafficStats: { packets: 9, bytes: 900, sessions: 3 },
                ruleTrafficStats: [{ name: 'r1', trafficStats: { packets: 9, bytes: 900, sessions: 3 } }],
              },
            ],
          }
        : { items: [] },
  },
  networkPolicies: {
    list: () => ({ items: [{ object: { sourceRef: { uid: 'u1' }, span: new Set(['<n1>']) } }] }),
  },
  api: { connectedNodes: () => new Set(['<n1>']) },
};

let dashboard: Dashboard | undefined;
afterEach(async () => dashboard?.stop());

function make(cluster = fakeCluster()) {
  dashboard = new Dashboard(
    { port: 0 },
    { logger: pino({ level: 'silent' }), cluster, controller, now: () => NOW },
  );
  return { app: dashboard.app, cluster };
}

const FORM = 'application/x-www-form-urlencoded';

describe('Dashboard', () => {
  it('shows the controller and each agent with health and heartbeat age, names escaped', async () => {
    const res = await make().app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('v-test');
    expect(res.body).toMatch(
      /<tr data-node="&lt;n1&gt;">\s*<td>&lt;n1&gt;<\/td><td><span class="badge Healthy">Healthy<\/span><\/td><td class="num">30 s<\/td>/,
    );
    expect(res.body).not.toContain('<n1>');
  });

  it('shows policies with realization, span and rule stats', async () => {
    const res = await make().app.inject('/policies');
    expect(res.body).toContain('data-policy="AntreaClusterNetworkPolicy//drop-b"');
    expect(res.body).toContain('<td class="num realized">1/1</td>');
    expect(res.body).toMatch(
      /<tr data-rule="r1"><td>r1<\/td><td>Ingress<\/td><td>Drop<\/td><td class="num">9<\/td><td class="num">900<\/td><td class="num">3<\/td>/,
    );
  });

  it('filters the policies by name and type from the query string', async () => {
    const { app } = make();
    const none = await app.inject('/policies?q=nothing&type=K8s');
    expect(none.body).toContain('<h1>Policies (0 of 1)</h1>');
    expect(none.body).toContain('No NetworkPolicies match.');
    expect(none.body).toContain('value="nothing"');
    const some = await app.inject('/policies?q=drop&type=ACNP');
    expect(some.body).toContain('<h1>Policies (1)</h1>');
    expect(some.body).toContain('data-policy="AntreaClusterNetworkPolicy//drop-b"');
  });

  it('creates a Traceflow from a posted form and redirects to its page', async () => {
    const { app, cluster } = make();
    const res = await app.inject({
      method: 'POST',
      url: '/traceflow',
      headers: { 'content-type': FORM, origin: 'http://localhost:80', host: 'localhost:80' },
      payload: 'srcNamespace=x&srcPod=a1&dstType=pod&dstName=b1&protocol=TCP&dstPort=80',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/traceflow/a1-to-b1-abcde');
    expect(cluster.created[0]!.spec).toMatchObject({ destination: { namespace: 'x', pod: 'b1' } });
    const page = await app.inject('/traceflow/a1-to-b1-abcde');
    expect(page.body).toContain('data-final="false"');
    expect(page.body).toContain('<td id="phase"><span class="badge Pending">Pending</span></td>');
  });

  it('shows a form error beside the form, with what was typed, and creates nothing', async () => {
    const { app, cluster } = make();
    const res = await app.inject({
      method: 'POST',
      url: '/traceflow',
      headers: { 'content-type': FORM },
      payload: 'srcNamespace=x&srcPod=a1&dstType=ip&dstIP=nope',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      '<p class="error" id="form-error">destination IP: &quot;nope&quot; is not an IP address</p>',
    );
    expect(res.body).toContain('value="nope"');
    expect(cluster.created).toEqual([]);
  });

  it('refuses a form posted from another site', async () => {
    const { app, cluster } = make();
    for (const headers of [
      { origin: 'http://evil.example', host: 'localhost:80' },
      { 'sec-fetch-site': 'cross-site' },
      // A sibling subdomain is another site's page too (README: Access).
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/traceflow',
        headers: { 'content-type': FORM, ...headers },
        payload: 'srcNamespace=x&srcPod=a1&dstName=b1',
      });
      expect(res.statusCode).toBe(403);
    }
    expect(cluster.created).toEqual([]);
  });

  it('shows a finished Traceflow with its observations and stops refreshing it', async () => {
    const { app, cluster } = make();
    cluster.created.push({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: { name: 'tf1' },
      spec: { source: { namespace: 'x', pod: 'a1' }, destination: { namespace: 'x', pod: 'b1' } },
      status: {
        phase: 'Succeeded',
        results: [
          {
            node: 'n1',
            role: 'sender',
            observations: [
              {
                component: 'NetworkPolicy',
                componentInfo: 'EgressRule',
                action: 'Dropped',
                networkPolicy: 'AntreaClusterNetworkPolicy:drop-b',
                networkPolicyRule: 'r1',
              },
            ],
          },
        ],
      },
    });
    const res = await app.inject('/traceflow/tf1');
    expect(res.body).toContain('data-final="true"');
    expect(res.body).toContain(
      '<td>NetworkPolicy (EgressRule)</td><td>Dropped</td><td>policy AntreaClusterNetworkPolicy:drop-b, rule r1</td>',
    );
    expect((await app.inject('/traceflow/none')).statusCode).toBe(404);
  });

  it('answers 502 with the reason when kube-apiserver refuses', async () => {
    const cluster = fakeCluster();
    cluster.fail = true;
    const res = await make(cluster).app.inject('/');
    expect(res.statusCode).toBe(502);
    expect(res.body).toContain('antreaagentinfos: forbidden');
  });

  it('listens on loopback by default and stops idempotently', async () => {
    const { app } = make();
    await dashboard!.start();
    expect(dashboard!.address.host).toBe('127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${dashboard!.address.port}/healthz`);
    expect(await res.text()).toBe('ok');
    await dashboard!.stop();
    await dashboard!.stop();
    expect(app.server.listening).toBe(false);
  });
});
