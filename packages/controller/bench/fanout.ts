// antrea-controller fan-out benchmark: the SmallNamespaces world (25k Namespaces, 75k
// NetworkPolicies, 100k Pods on 1000 Nodes) computed and served over HTTPS/HTTP/2 to 1000
// simulated agents (SimAgent: protobuf watches with fieldSelector=nodeName and a Node-bound
// identity, one connection each), in child processes so the controller's RSS is its own. Two
// extra policies: one whose peer is every Pod (a 100k-member AddressGroup, applied in the first
// Namespace) and a cluster-wide ClusterNetworkPolicy applied to every Pod (spans all Nodes).
//
//   node packages/controller/bench/dist/fanout.js [--json] [--agents N] [--agent-procs N]
//        [--changes N] [--seed N] [--prof-controller] [--semi-space MB]
//
// Prints: time until every agent holds its full initial state, controller peak RSS and CPU,
// p50/p99 from one policy change to every affected agent having it (a policy created in one
// Namespace; an update of the cluster-wide policy, which every agent receives), and the bytes on
// the wire for one Pod IP change in the 100k-member AddressGroup (a patch: O(1) in group size).
import { type ChildProcess, fork } from 'node:child_process';
import { connect } from 'node:http2';
import { fileURLToPath } from 'node:url';
import { ApiServer, jsonCodec, ResourceRegistry, SelfSignedCertManager } from '@antrea-ts/apiserver';
import { FakeAccessReviewer, FakeTokenReviewer } from '@antrea-ts/apiserver/testing';
import { BenchReport, percentile } from '@antrea-ts/harness';
import type { V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from 'prom-client';
import {
  addressGroupConversion,
  type CrdClusterNetworkPolicy,
  type InternalAddressGroup,
  type InternalAppliedToGroup,
  type InternalNetworkPolicy,
  PolicyEngine,
  protobufCodec,
  RamStore,
  registerControllerApi,
  SimAgent,
  StatsAggregator,
  systemClock,
} from '#controller';
import { Rand, smallNamespaces } from './workloads.js';

const argv = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : dflt;
};
const MB = 1024 * 1024;
const now = () => performance.timeOrigin + performance.now();
const nodeName = (i: number) => `Node-${i}`;
const tokenOf = (node: string) => `token-${node}`;

// ------------------------------------------------------------------------------------------
// Controller process: compute the world, serve it, apply changes on request.

async function controllerChild(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const nNodes = arg('nodes', 1000);
  const t0 = now();
  const w = smallNamespaces(new Rand(arg('seed', 1)));
  // One extra policy with a huge peer: ingress from every Pod of every Namespace (an AddressGroup
  // of 100k members), applied to the Pods of the first Namespace (a few Nodes).
  const ns0 = w.namespaces[0]!.metadata!.name!;
  w.networkPolicies.push({
    metadata: { namespace: ns0, name: 'from-everyone', uid: 'bench-large-ag', generation: 1 },
    spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ _from: [{ namespaceSelector: {} }] }] },
  });
  // A cluster-wide ACNP applied to every Pod (its policy spans all 1000 Nodes); each "wide"
  // change edits its port, so one policy update goes to every agent.
  const widePolicy = (port: number): CrdClusterNetworkPolicy => ({
    metadata: { name: 'bench-wide', uid: 'bench-wide', generation: port },
    spec: {
      priority: 5,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [
        { action: 'Allow', from: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ protocol: 'TCP', port }] },
      ],
    },
  });
  const networkPolicies = new RamStore<InternalNetworkPolicy>('NetworkPolicy');
  const appliedToGroups = new RamStore<InternalAppliedToGroup>('AppliedToGroup');
  const addressGroups = new RamStore<InternalAddressGroup>('AddressGroup');
  const engine = new PolicyEngine({ networkPolicies, appliedToGroups, addressGroups });
  const registry = new ResourceRegistry();
  // Time spent converting and queueing store events to watchers (the rest of a change is compute).
  const fanout = { ms: 0 };
  const api = registerControllerApi(registry, {
    logger,
    networkPolicies,
    appliedToGroups,
    addressGroups,
    reportStatus: () => {},
    stats: new StatsAggregator(networkPolicies, systemClock),
    controllerInfo: () => ({}),
    observer: { dispatched: (_r, ms) => (fanout.ms += ms) },
  });
  api.start();
  for (const ns of w.namespaces) engine.upsertNamespace(ns);
  for (const pod of w.pods) engine.upsertPod(pod);
  for (const np of w.networkPolicies) engine.upsertK8sNetworkPolicy(np);
  engine.upsertClusterNetworkPolicy(widePolicy(1));
  engine.flush();
  const computeMs = now() - t0;

  const tokens = new FakeTokenReviewer();
  for (let i = 0; i < nNodes; i++) {
    const node = nodeName(i);
    tokens.tokens.set(tokenOf(node), {
      username: 'system:serviceaccount:kube-system:antrea-agent',
      groups: ['system:serviceaccounts'],
      extra: { 'authentication.kubernetes.io/node-name': [node] },
    });
  }
  const certs = new SelfSignedCertManager({
    logger,
    dnsNames: ['antrea.kube-system.svc'],
    ipAddresses: ['127.0.0.1'],
  });
  const server = new ApiServer({
    logger,
    registry,
    certificates: certs,
    metricsRegistry: new Registry(),
    tokenReviewer: tokens,
    accessReviewer: new FakeAccessReviewer(() => true),
    codecs: [jsonCodec, protobufCodec],
    host: '127.0.0.1',
    port: 0,
  });
  await server.start();

  // The large AddressGroup: the one with the most members.
  let large = addressGroups.list().items[0]!.object;
  for (const { object } of addressGroups.list().items)
    if (object.members.length > large.members.length) large = object;
  const largeFull = protobufCodec.encode(addressGroupConversion.full(large, 1, undefined)).length;

  const send = (m: unknown) => process.send!(m);
  send({
    t: 'ready',
    port: server.address.port,
    ca: certs.current().caBundlePem,
    computeMs,
    cpuS: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    counts: {
      np: networkPolicies.size,
      atg: appliedToGroups.size,
      ag: addressGroups.size,
      pods: w.pods.length,
    },
    large: { name: large.name, members: large.members.length, span: large.span.size, bytes: largeFull },
  });

  let ipSerial = 0;
  process.on('message', (msg: { t: string; i: number }) => {
    if (msg.t === 'policy') {
      // Antrea's perf-test style change: one policy in one Namespace of the big world.
      const ns = w.namespaces[(msg.i * 104729) % w.namespaces.length]!.metadata!.name!;
      const name = `bench-${msg.i}`;
      const start = now();
      engine.upsertK8sNetworkPolicy({
        metadata: { namespace: ns, name, uid: name, generation: 1 },
        spec: {
          podSelector: { matchLabels: { 'app-1': 'scale-1' } },
          policyTypes: ['Ingress'],
          ingress: [{ _from: [{ podSelector: { matchLabels: { 'app-2': 'scale-2' } } }] }],
        },
      });
      engine.flush();
      const span = [...(networkPolicies.get(name)?.object.span ?? [])];
      send({ t: 'policy-done', i: msg.i, name, start, span, ns });
    } else if (msg.t === 'wide') {
      const start = now();
      engine.upsertClusterNetworkPolicy(widePolicy(1000 + msg.i));
      engine.flush();
      const span = networkPolicies.get('bench-wide')?.object.span.size ?? 0;
      send({ t: 'wide-done', i: msg.i, start, flushMs: now() - start, span });
    } else if (msg.t === 'policy-delete') {
      const ns = w.namespaces[(msg.i * 104729) % w.namespaces.length]!.metadata!.name!;
      engine.deleteK8sNetworkPolicy(ns, `bench-${msg.i}`);
      engine.flush();
      send({ t: 'policy-delete-done', i: msg.i });
    } else if (msg.t === 'podip') {
      // A Pod outside the first Namespace changes IP: the large group changes by one member.
      const idx = 1000 + msg.i;
      const pod = w.pods[idx]!;
      const ip = `10.${200 + (ipSerial >> 16)}.${(ipSerial >> 8) & 255}.${ipSerial & 255}`;
      ipSerial++;
      const updated: V1Pod = { ...pod, status: { ...pod.status, podIP: ip, podIPs: [{ ip }] } };
      w.pods[idx] = updated;
      const start = now();
      fanout.ms = 0;
      engine.upsertPod(updated);
      engine.flush();
      send({
        t: 'podip-done',
        i: msg.i,
        start,
        flushMs: now() - start,
        fanoutMs: fanout.ms,
        span: [...(addressGroups.get(large.name)?.object.span ?? [])],
      });
    } else if (msg.t === 'stats') {
      send({
        t: 'stats',
        rssPeakMB: (process.resourceUsage().maxRSS * 1024) / MB,
        cpuS: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
        rssMB: process.memoryUsage().rss / MB,
        heapMB: process.memoryUsage().heapUsed / MB,
        watches: server.watchCount,
      });
    } else if (msg.t === 'exit') {
      void server.stop().then(() => process.exit(0));
    }
  });
}

// ------------------------------------------------------------------------------------------
// Agent process: a range of simulated agents, one HTTP/2 connection each.

function agentsChild(): void {
  let agents: SimAgent[] = [];
  process.send!({ t: 'up' });
  let largeAg = '';
  const tally = new Map<string, { count: number; maxAt: number; bytes: number; maxBytes: number }>();
  process.on(
    'message',
    (msg: { t: string; port: number; ca: string; from: number; to: number; large: string }) => {
      if (msg.t === 'start') {
        largeAg = msg.large;
        for (let i = msg.from; i < msg.to; i++) {
          const node = nodeName(i);
          let session: ReturnType<typeof connect> | undefined;
          const agent = new SimAgent({
            node,
            session: () => {
              if (session && !session.closed && !session.destroyed) return session;
              session = connect(`https://127.0.0.1:${msg.port}`, {
                ca: msg.ca,
                servername: 'antrea.kube-system.svc',
              });
              session.on('error', () => {});
              return session;
            },
            token: () => tokenOf(node),
            onSynced: (a) => process.send!({ t: 'synced', node: a.node, at: now() }),
            onEvent: (_a, ev) => {
              if (
                (ev.resource === 'networkpolicies' && ev.name.startsWith('bench-')) ||
                (ev.resource === 'addressgroups' && ev.type === 'MODIFIED' && ev.name === largeAg)
              ) {
                // Tallied here and queried by the parent: one IPC message per agent event would
                // slow the very event loops being measured.
                const key = `${ev.resource}|${ev.type}|${ev.name}`;
                const t = tally.get(key) ?? { count: 0, maxAt: 0, bytes: 0, maxBytes: 0 };
                t.count++;
                t.maxAt = Math.max(t.maxAt, now());
                t.bytes += ev.bytes;
                t.maxBytes = Math.max(t.maxBytes, ev.bytes);
                tally.set(key, t);
              }
            },
          });
          agents.push(agent);
          agent.start();
        }
      } else if (msg.t === 'reset') {
        tally.clear();
        process.send!({ t: 'reset-ok' });
      } else if (msg.t === 'query') {
        const t = tally.get((msg as unknown as { key: string }).key);
        process.send!({ t: 'tally', count: 0, maxAt: 0, bytes: 0, maxBytes: 0, ...t });
      } else if (msg.t === 'stop') {
        const bytes = agents.reduce((s, a) => s + a.bytesReceived, 0);
        for (const a of agents) a.stop();
        agents = [];
        const cpu = process.cpuUsage();
        process.send!({ t: 'stopped', bytes, cpuS: (cpu.user + cpu.system) / 1e6 });
        setTimeout(() => process.exit(0), 100);
      }
    },
  );
}

// ------------------------------------------------------------------------------------------
// Parent: orchestrates and measures.

type Msg = Record<string, unknown> & { t: string };

function child(role: string): {
  proc: ChildProcess;
  next: (t: string, pred?: (m: Msg) => boolean) => Promise<Msg>;
} {
  const proc = fork(fileURLToPath(import.meta.url), ['--child', role, ...argv], {
    // --prof-controller writes a V8 CPU profile of the controller process to the working directory.
    execArgv: [
      '--max-old-space-size=8192',
      ...(role === 'controller' && argv.includes('--prof-controller') ? ['--cpu-prof'] : []),
      // --semi-space MB: a larger young generation for the controller (V8 tuning experiment).
      ...(role === 'controller' && argv.includes('--semi-space')
        ? [`--max-semi-space-size=${arg('semi-space', 16)}`]
        : []),
    ],
  });
  const waiters: { t: string; pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  const listeners: ((m: Msg) => void)[] = [];
  proc.on('message', (m: Msg) => {
    const at = waiters.findIndex((w) => w.t === m.t && w.pred(m));
    if (at >= 0) waiters.splice(at, 1)[0]!.resolve(m);
    for (const l of listeners) l(m);
  });
  return {
    proc: Object.assign(proc, { listeners }),
    next: (t, pred = () => true) => new Promise((resolve) => waiters.push({ t, pred, resolve })),
  };
}

async function parent(): Promise<void> {
  const json = argv.includes('--json');
  const nAgents = arg('agents', 1000);
  const procs = Math.max(1, arg('agent-procs', 2));
  const changes = arg('changes', 100);
  const report = new BenchReport('fanout', json);
  const m = (metric: string, value: number, unit: string) =>
    report.record(`SmallNamespaces/${nAgents}agents`, metric, value, unit);

  const ctl = child('controller');
  const ready = await ctl.next('ready');
  const counts = ready.counts as Record<string, number>;
  const large = ready.large as { name: string; members: number; span: number; bytes: number };
  m('compute_time', (ready.computeMs as number) / 1000, 's');
  m('network_policies', counts.np!, 'count');
  m('applied_to_groups', counts.atg!, 'count');
  m('address_groups', counts.ag!, 'count');

  const agentProcs = Array.from({ length: procs }, () => child('agents'));
  await Promise.all(agentProcs.map((a) => a.next('up')));
  let synced = 0;
  let lastSync = 0;
  const onMsg = (msg: Msg) => {
    if (msg.t === 'synced') {
      synced++;
      lastSync = Math.max(lastSync, msg.at as number);
    }
  };
  for (const a of agentProcs)
    (a.proc as unknown as { listeners: ((m: Msg) => void)[] }).listeners.push(onMsg);
  const t0 = now();
  const per = Math.ceil(nAgents / procs);
  for (const [k, a] of agentProcs.entries()) {
    a.proc.send({
      t: 'start',
      port: ready.port,
      ca: ready.ca,
      from: k * per,
      to: Math.min(nAgents, (k + 1) * per),
      large: large.name,
    });
  }
  while (synced < nAgents) {
    await new Promise((r) => setTimeout(r, 50));
    if (now() - t0 > 600_000) throw new Error(`only ${synced}/${nAgents} agents synced after 600 s`);
  }
  m('initial_sync_time', (lastSync - t0) / 1000, 's');
  ctl.proc.send({ t: 'stats' });
  const afterSync = await ctl.next('stats');
  m('controller_rss_after_sync', afterSync.rssMB as number, 'MB');
  // CPU of the controller up to here: compute plus serving every initial state.
  m('controller_cpu_until_synced', afterSync.cpuS as number, 's');
  m('controller_cpu_serving_initial', (afterSync.cpuS as number) - (ready.cpuS as number), 's');

  const reset = async () => {
    await Promise.all(
      agentProcs.map((a) => {
        a.proc.send({ t: 'reset' });
        return a.next('reset-ok');
      }),
    );
  };
  /** Waits until `expected` agents got the event `key`; the last arrival time and bytes. */
  const collect = async (key: string, expected: number) => {
    const deadline = now() + 30_000;
    for (;;) {
      const parts = await Promise.all(
        agentProcs.map((a) => {
          a.proc.send({ t: 'query', key });
          return a.next('tally');
        }),
      );
      const count = parts.reduce((x, p) => x + (p.count as number), 0);
      if (count >= expected || now() > deadline) {
        return {
          count,
          maxAt: Math.max(...parts.map((p) => p.maxAt as number)),
          bytes: parts.reduce((x, p) => x + (p.bytes as number), 0),
          maxBytes: Math.max(...parts.map((p) => p.maxBytes as number)),
        };
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const withAgent = (nodes: string[]) => nodes.filter((n) => Number(n.slice(5)) < nAgents);

  // Policy changes in one Namespace: latency until every Node in the policy's span has it.
  const lat: number[] = [];
  for (let i = 0; i < changes; i++) {
    ctl.proc.send({ t: 'policy', i });
    const done = await ctl.next('policy-done', (x) => x.i === i);
    const span = withAgent(done.span as string[]);
    if (span.length > 0) {
      const got = await collect(`networkpolicies|ADDED|${done.name as string}`, span.length);
      lat.push(got.maxAt - (done.start as number));
    }
    ctl.proc.send({ t: 'policy-delete', i });
    await ctl.next('policy-delete-done', (x) => x.i === i);
  }
  m('policy_change_latency_p50', percentile(lat, 50), 'ms');
  m('policy_change_latency_p99', percentile(lat, 99), 'ms');
  m('policy_change_latency_max', percentile(lat, 100), 'ms');

  // Cluster-wide policy updates: latency until all its Nodes (every agent) have the new version.
  const wide: number[] = [];
  const wideFlush: number[] = [];
  for (let i = 0; i < Math.max(1, Math.floor(changes / 2)); i++) {
    await reset();
    ctl.proc.send({ t: 'wide', i });
    const done = await ctl.next('wide-done', (x) => x.i === i);
    const got = await collect('networkpolicies|MODIFIED|bench-wide', Math.min(done.span as number, nAgents));
    wide.push(got.maxAt - (done.start as number));
    wideFlush.push(done.flushMs as number);
  }
  m('wide_policy_change_latency_p50', percentile(wide, 50), 'ms');
  m('wide_policy_change_latency_p99', percentile(wide, 99), 'ms');
  m('wide_policy_change_compute_and_fanout_p50', percentile(wideFlush, 50), 'ms');

  // Pod IP changes in the large AddressGroup: bytes each agent in its span receives.
  const ipLat: number[] = [];
  const ipFlush: number[] = [];
  const ipFanout: number[] = [];
  let perAgentBytes = 0;
  let totalBytes = 0;
  let ipAgents = 0;
  for (let i = 0; i < 10; i++) {
    await reset();
    ctl.proc.send({ t: 'podip', i });
    const ip = await ctl.next('podip-done', (x) => x.i === i);
    const span = withAgent(ip.span as string[]);
    const got = await collect(`addressgroups|MODIFIED|${large.name}`, span.length);
    ipLat.push(got.maxAt - (ip.start as number));
    ipFlush.push(ip.flushMs as number);
    ipFanout.push(ip.fanoutMs as number);
    perAgentBytes = Math.max(perAgentBytes, got.maxBytes);
    totalBytes = got.bytes;
    ipAgents = span.length;
  }
  m('large_group_members', large.members, 'count');
  m('large_group_full_bytes', large.bytes, 'B');
  m('pod_ip_change_bytes_per_agent', perAgentBytes, 'B');
  m('pod_ip_change_agents', ipAgents, 'count');
  m('pod_ip_change_bytes_total', totalBytes, 'B');
  m('pod_ip_change_compute_and_fanout_p50', percentile(ipFlush, 50), 'ms');
  m('pod_ip_change_fanout_only_p50', percentile(ipFanout, 50), 'ms');
  m('pod_ip_change_latency_p50', percentile(ipLat, 50), 'ms');
  m('pod_ip_change_latency_max', percentile(ipLat, 100), 'ms');

  ctl.proc.send({ t: 'stats' });
  const stats = await ctl.next('stats');
  m('controller_rss_peak', stats.rssPeakMB as number, 'MB');
  m('controller_watches', stats.watches as number, 'count');
  let wire = 0;
  let agentCpu = 0;
  for (const a of agentProcs) {
    a.proc.send({ t: 'stop' });
    const s = await a.next('stopped');
    wire += s.bytes as number;
    agentCpu += s.cpuS as number;
  }
  m('agents_cpu_total', agentCpu, 's');
  m('agent_bytes_total', wire / MB, 'MB');
  ctl.proc.send({ t: 'exit' });

  report.finish(
    `fanout: SmallNamespaces/${nAgents}agents (Antrea: ~1.3 GB peak with 1000 agents after PR #543; target < 1.5 GB, p99 < 200 ms)`,
  );
}

const role = argv.indexOf('--child');
if (role >= 0 && argv[role + 1] === 'controller') await controllerChild();
else if (role >= 0 && argv[role + 1] === 'agents') agentsChild();
else await parent();
