// Prometheus metrics of real antrea-agents and antrea-controller on the lab (instance 34: lab34-*,
// its own state dir), scraped as a Prometheus job written for Antrea would: HTTPS without verifying
// the certificate, the bearer token of a ServiceAccount bound to Antrea's `prometheus` ClusterRole.
// After Pod traffic, a Service and NetworkPolicies that allow, reject and (logged) drop, it checks
// Antrea's prometheus_test metric lists and that the values it implies are non-zero are.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll, prometheusScrape, serviceAccountWithClusterRole } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { settle } from './framework/settle.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(34);
const N1 = 'lab34-node-1';
const N2 = 'lab34-node-2';
const NS = 'metrics';
const HTTP = 80;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/** Antrea's test/e2e/prometheus_test.go lists, less what docs/metrics.md says we do not expose. */
const AGENT_METRICS = [
  'antrea_agent_egress_networkpolicy_rule_count',
  'antrea_agent_fqdn_cache_size',
  'antrea_agent_ingress_networkpolicy_rule_count',
  'antrea_agent_local_pod_count',
  'antrea_agent_networkpolicy_count',
  'antrea_agent_ovs_flow_count',
  'antrea_agent_ovs_flow_ops_count',
  'antrea_agent_ovs_flow_ops_error_count',
  'antrea_agent_ovs_flow_ops_latency_milliseconds',
  'antrea_agent_ovs_total_flow_count',
  'antrea_agent_conntrack_total_connection_count',
  'antrea_agent_conntrack_antrea_connection_count',
  'antrea_agent_conntrack_max_connection_count',
  'antrea_agent_denied_connection_count',
  'antrea_agent_flow_collector_reconnection_count',
  'antrea_proxy_sync_proxy_rules_duration_seconds',
  'antrea_proxy_total_endpoints_installed',
  'antrea_proxy_total_endpoints_updates',
  'antrea_proxy_total_services_installed',
  'antrea_proxy_total_services_updates',
];
const CONTROLLER_METRICS = [
  'antrea_controller_address_group_processed',
  'antrea_controller_address_group_sync_duration_milliseconds',
  'antrea_controller_applied_to_group_processed',
  'antrea_controller_applied_to_group_sync_duration_milliseconds',
  'antrea_controller_length_address_group_queue',
  'antrea_controller_length_applied_to_group_queue',
  'antrea_controller_length_network_policy_queue',
  'antrea_controller_network_policy_processed',
  'antrea_controller_network_policy_sync_duration_milliseconds',
];

/** The TCP client, run with `node -e` in a Pod: COUNT connections, prints ok|reject|timeout per line. */
const CLIENT = `
const net = require('node:net');
const [host, port, count] = process.argv.slice(1);
(async () => {
  for (let i = 0; i < Number(count); i++) {
    console.log(await new Promise((resolve) => {
      const sock = net.connect({ host, port: Number(port) });
      const done = (v) => { clearTimeout(t); sock.destroy(); resolve(v); };
      const t = setTimeout(() => done('timeout'), 1500);
      sock.on('data', () => {});
      sock.on('end', () => done('ok'));
      sock.on('error', (e) => done(e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' ? 'reject' : e.code));
    }));
  }
})();
`;

/** Samples of a Prometheus text exposition: `name{labels}` -> value. */
function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Sum of the samples of one metric (every label set); the `_count` of a histogram names it. */
function total(samples: Map<string, number>, name: string): number {
  let sum = 0;
  for (const [key, v] of samples) if (key === name || key.startsWith(`${name}{`)) sum += v;
  return sum;
}

/** The metric families a scrape exposes (from its # TYPE lines). */
const families = (text: string): Set<string> =>
  new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));

describe.skipIf(!isRoot)('Prometheus metrics on the lab', () => {
  let lab: Lab;
  let token: string;
  const nodeIp: Record<string, string> = {};
  let controllerUrl: string;

  const agentMetrics = async (node: string) => {
    const r = await prometheusScrape(`https://${nodeIp[node]}:10350/metrics`, token);
    expect(r.status, `${node} /metrics`).toBe(200);
    return r.text;
  };
  const connect = async (pod: string, host: string, count: number) =>
    (
      await lab.exec(NS, pod, ['node', '-e', CLIENT, host, String(HTTP), String(count)], {
        timeoutMs: 60_000,
      })
    )
      .trim()
      .split('\n');
  const apply = (object: object) => lab.kubectl(['apply', '-f', '-'], { input: JSON.stringify(object) });
  const acnp = (name: string, spec: object) =>
    apply({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name }, spec });

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    const status = await lab.status();
    for (const n of status.nodes) nodeIp[n.name] = n.nodeIp;
    controllerUrl = `https://${status.controller?.address}/metrics`;

    await lab.kubectl(['create', 'namespace', 'monitoring']);
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: serviceAccountWithClusterRole({
        name: 'prometheus',
        namespace: 'monitoring',
        clusterRole: 'prometheus',
        // Antrea's build/yamls/antrea-prometheus.yml ClusterRole.
        rules: [
          {
            apiGroups: [''],
            resources: ['nodes', 'nodes/proxy', 'services', 'endpoints', 'pods'],
            verbs: ['get', 'list', 'watch'],
          },
          { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get', 'list', 'watch'] },
          { nonResourceURLs: ['/metrics'], verbs: ['get'] },
        ],
      }),
    });
    token = (await lab.kubectl(['create', 'token', 'prometheus', '-n', 'monitoring'])).trim();

    const ports = [{ port: HTTP, protocol: 'TCP' as const }];
    await lab.createPod({ namespace: NS, name: 'server', node: N2, labels: { app: 'server' }, ports });
    await lab.createPod({ namespace: NS, name: 'client', node: N1, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 'rejected', node: N1, labels: { app: 'rejected' } });
    await lab.createPod({ namespace: NS, name: 'blocked', node: N1, labels: { app: 'blocked' } });
    await apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: NS },
      spec: { selector: { app: 'server' }, ports: [{ port: 8080, targetPort: HTTP, protocol: 'TCP' }] },
    });
    // The server rejects app=rejected (ingress, on Node 2); app=blocked may not reach the server
    // (egress, on Node 1), logged so that its drops reach the agent.
    await acnp('metrics-reject', {
      tier: 'application',
      priority: 5,
      appliedTo: [{ podSelector: { matchLabels: { app: 'server' } }, namespaceSelector: {} }],
      ingress: [
        {
          action: 'Reject',
          from: [{ podSelector: { matchLabels: { app: 'rejected' } }, namespaceSelector: {} }],
        },
      ],
    });
    await acnp('metrics-drop', {
      tier: 'application',
      priority: 6,
      appliedTo: [{ podSelector: { matchLabels: { app: 'blocked' } }, namespaceSelector: {} }],
      egress: [
        {
          action: 'Drop',
          enableLogging: true,
          to: [{ podSelector: { matchLabels: { app: 'server' } }, namespaceSelector: {} }],
        },
      ],
    });
    for (const name of ['metrics-reject', 'metrics-drop'])
      await lab.kubectl(['wait', '--for=jsonpath={.status.phase}=Realized', '--timeout=60s', `acnp/${name}`]);
  }, 300_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it("exposes Antrea's agent metrics, non-zero after traffic, a Service and policies that reject and drop", async () => {
    const server = (
      await lab.kubectl(['get', 'pod', 'server', '-n', NS, '-o', 'jsonpath={.status.podIP}'])
    ).trim();
    await poll('client to reach the server', async () => (await connect('client', server, 1))[0] === 'ok', {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    expect(await connect('client', server, 5)).toEqual(Array(5).fill('ok'));
    expect(await connect('rejected', server, 3)).toEqual(Array(3).fill('reject'));
    expect(await connect('blocked', server, 2)).toEqual(Array(2).fill('timeout'));

    for (const node of [N1, N2]) {
      const nonZero = [
        'antrea_agent_local_pod_count',
        'antrea_agent_ovs_total_flow_count',
        'antrea_agent_ovs_flow_count',
        'antrea_agent_ovs_flow_ops_latency_milliseconds_count',
        'antrea_agent_networkpolicy_count',
        'antrea_agent_conntrack_total_connection_count',
        'antrea_agent_conntrack_antrea_connection_count',
        'antrea_agent_conntrack_max_connection_count',
        'antrea_agent_denied_connection_count',
        'antrea_proxy_total_services_installed',
        'antrea_proxy_total_endpoints_installed',
        'antrea_proxy_total_services_updates',
        'antrea_proxy_total_endpoints_updates',
        'antrea_proxy_sync_proxy_rules_duration_seconds_count',
      ];
      const missing = (text: string) => AGENT_METRICS.filter((m) => !families(text).has(m));
      const zero = (s: Map<string, number>) => nonZero.filter((m) => !(total(s, m) > 0));
      // Gauges read on scrape keep their last value when a reading fails (the conntrack dump under
      // load): scrape again until every family is there and non-zero, then check that scrape.
      const text = await settle(
        () => agentMetrics(node),
        (t) => missing(t).length === 0 && zero(parseExposition(t)).length === 0,
        { timeoutMs: 30_000 },
      );
      expect(missing(text), node).toEqual([]);
      const s = parseExposition(text);
      expect(zero(s), `${node}: zero where a value is expected`).toEqual([]);
      expect(s.get('antrea_agent_ovs_flow_ops_count{operation="add"}'), node).toBeGreaterThan(0);
      // The per-table counts add up to the total.
      expect(total(s, 'antrea_agent_ovs_flow_count'), node).toBe(s.get('antrea_agent_ovs_total_flow_count'));
    }
    const n1 = parseExposition(await agentMetrics(N1));
    const n2 = parseExposition(await agentMetrics(N2));
    // The egress policy applies on Node 1 (app=blocked), the ingress one on Node 2 (the server).
    expect(n1.get('antrea_agent_egress_networkpolicy_rule_count')).toBeGreaterThan(0);
    expect(n2.get('antrea_agent_ingress_networkpolicy_rule_count')).toBeGreaterThan(0);
  }, 180_000);

  it('counts flow deletes when a policy goes, and serves the controller metrics too', async () => {
    const before = parseExposition(await agentMetrics(N1));
    await lab.kubectl(['delete', 'acnp', 'metrics-drop']);
    // The rule leaves the rule cache first, its flows leave the bridge in the realization after.
    const deletes = 'antrea_agent_ovs_flow_ops_count{operation="delete"}';
    let after = before;
    await poll(
      'Node 1 to remove the egress rule and its flows',
      async () => {
        after = parseExposition(await agentMetrics(N1));
        return (
          after.get('antrea_agent_egress_networkpolicy_rule_count') === 0 &&
          after.get(deletes)! > before.get(deletes)!
        );
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(after.get('antrea_agent_ovs_flow_ops_error_count{operation="add"}')).toBe(0);

    const controller = await prometheusScrape(controllerUrl, token);
    expect(controller.status).toBe(200);
    const present = families(controller.text);
    expect(CONTROLLER_METRICS.filter((m) => !present.has(m))).toEqual([]);
    const s = parseExposition(controller.text);
    for (const m of [
      'antrea_controller_network_policy_processed',
      'antrea_controller_applied_to_group_processed',
      'antrea_controller_address_group_processed',
      'antrea_controller_network_policy_sync_duration_milliseconds_count',
      'antrea_controller_applied_to_group_sync_duration_milliseconds_count',
      'antrea_controller_address_group_sync_duration_milliseconds_count',
      'antrea_controller_acnp_status_updates',
    ])
      expect(total(s, m), m).toBeGreaterThan(0);
  }, 120_000);
});
