// How long the dashboard takes to build its pages for large clusters, and how big they get: the
// join of policies, statuses, spans and stats plus the HTML rendering, measured through fastify's
// inject (no sockets) over in-memory sources, so kube-apiserver's list latency is not included.
//
//   node packages/dashboard/bench/dist/render.js [--json] [--repeat N]
import type { AntreaAgentInfo, ClusterNetworkPolicy } from '@antrea-ts/apis';
import { type ClusterReader, Dashboard, type DashboardControllerView } from '@antrea-ts/dashboard';
import { BenchReport, formatBenchMatrix } from '@antrea-ts/harness';
import { pino } from 'pino';

function cluster(
  agents: number,
  policies: number,
): { reader: ClusterReader; controller: DashboardControllerView } {
  const beat = new Date().toISOString();
  const infos: AntreaAgentInfo[] = Array.from({ length: agents }, (_, i) => ({
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'AntreaAgentInfo',
    metadata: { name: `node-${i}` },
    version: 'v2.8.0',
    localPodNum: 30,
    nodeSubnets: [`10.${i >> 8}.${i & 255}.0/24`],
    ovsInfo: { flowTable: { Classifier: 10, Output: 5 } },
    agentConditions: [
      { type: 'AgentHealthy', status: 'True', lastHeartbeatTime: beat },
      { type: 'ControllerConnectionUp', status: 'True', lastHeartbeatTime: beat },
    ],
  }));
  const acnps: ClusterNetworkPolicy[] = Array.from({ length: policies }, (_, i) => ({
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterNetworkPolicy',
    metadata: { name: `policy-${i}`, uid: `uid-${i}` },
    spec: {
      priority: 1 + (i % 100),
      ingress: [
        { name: 'allow-web', action: 'Allow' },
        { name: 'drop-rest', action: 'Drop' },
      ],
      egress: [{ name: 'allow-dns', action: 'Allow' }],
    },
    status: { phase: 'Realized', observedGeneration: 1, currentNodesRealized: 3, desiredNodesRealized: 3 },
  }));
  const stats = acnps.map((p) => ({
    metadata: { uid: p.metadata.uid },
    trafficStats: { packets: 100, bytes: 10_000, sessions: 5 },
    ruleTrafficStats: [{ name: 'allow-web', trafficStats: { packets: 100, bytes: 10_000, sessions: 5 } }],
  }));
  const spans = acnps.map((p) => ({
    object: { sourceRef: { uid: p.metadata.uid }, span: new Set(['a', 'b', 'c']) },
  }));
  const connected = new Set(infos.map((a) => a.metadata.name!));
  return {
    reader: {
      agentInfos: async () => infos,
      clusterNetworkPolicies: async () => acnps,
      antreaNetworkPolicies: async () => [],
      k8sNetworkPolicies: async () => [],
      traceflows: async () => [],
      traceflow: async () => undefined,
      createTraceflow: async (tf) => tf,
    },
    controller: {
      controllerInfo: {
        current: () => ({
          apiVersion: 'crd.antrea.io/v1beta1',
          kind: 'AntreaControllerInfo',
          metadata: { name: 'antrea-controller' },
        }),
      },
      stats: { list: (res) => ({ items: res.type === 'AntreaClusterNetworkPolicy' ? stats : [] }) },
      networkPolicies: { list: () => ({ items: spans }) },
      api: { connectedNodes: () => connected },
    },
  };
}

const CASES = [
  { name: '10 agents, 100 policies', agents: 10, policies: 100 },
  { name: '1000 agents, 10k policies', agents: 1000, policies: 10_000 },
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const r = args.indexOf('--repeat');
  const repeat = r >= 0 ? Number(args[r + 1]) : 5;
  const report = new BenchReport('dashboard', json, { table: formatBenchMatrix });
  for (const c of CASES) {
    const { reader, controller } = cluster(c.agents, c.policies);
    const dashboard = new Dashboard(
      { port: 0 },
      { logger: pino({ level: 'silent' }), cluster: reader, controller },
    );
    for (const [page, url] of [
      ['health', '/'],
      ['policies', '/policies'],
    ] as const) {
      const times: number[] = [];
      let bytes = 0;
      await dashboard.app.inject(url); // warm-up
      for (let i = 0; i < repeat; i++) {
        const t0 = performance.now();
        const res = await dashboard.app.inject(url);
        times.push(performance.now() - t0);
        if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode}`);
        bytes = res.rawPayload.length;
      }
      const name = `${page}: ${c.name}`;
      report.recordPercentiles(name, times, { median: 50 }, 'ms');
      report.record(name, 'page', Math.round(bytes / 1024), 'KiB');
    }
    await dashboard.app.close();
  }
  report.finish(`Dashboard page build through fastify inject, median of ${repeat} after a warm-up`);
}

await main();
