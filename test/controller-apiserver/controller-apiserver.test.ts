import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { type ClientHttp2Session, connect, constants as h2 } from 'node:http2';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodeControlplaneObject, formatIP } from '@antrea-ts/apis';
import {
  AntreaController,
  type AntreaControllerConfig,
  digestAgentState,
  expectedAgentState,
  SimAgent,
} from '@antrea-ts/controller';
import {
  applyObjects,
  type ExtensionServerSetup,
  freePort,
  installCrds,
  type KubeCluster,
  serviceAccountWithClusterRole,
  startExtensionServerSetup,
  waitFor,
} from '@antrea-ts/harness';
import { CoreV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// antrea-controller composed in-process (AntreaController, as cmd/antrea-controller runs it)
// against a real kube-apiserver: informers -> compute -> stores -> HTTPS API server behind the
// APIService, agents simulated by protobuf watch clients with real ServiceAccount tokens.

// The aggregator refuses loopback endpoints: serve on a veth address of our own (see
// startExtensionServerSetup), not the one another suite uses.
const SERVER_IP = '198.18.252.1';
const BASE = '/apis/controlplane.antrea.io/v1beta2';
const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));

let setup: ExtensionServerSetup;
let kube: KubeCluster;
let core: CoreV1Api;
let controller: AntreaController;
let binary: ChildProcess | undefined;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let port: number;
const sessions = new Set<ClientHttp2Session>();
const agents: SimAgent[] = [];

function config(): AntreaControllerConfig {
  return {
    version: 'test',
    bindAddress: SERVER_IP,
    apiPort: port,
    service: { name: 'antrea', namespace: 'kube-system', port: 443 },
    publishCaBundle: true,
    antreaPolicy: true,
    enablePrometheusMetrics: true,
    controllerInfoIntervalMs: 500,
    nodeIPAM: {
      clusterCIDRs: [
        { clusterCIDR: '10.244.0.0/16', nodeMaskSize: 24 },
        { clusterCIDR: 'fd00:10:244::/56', nodeMaskSize: 64 },
      ],
    },
    // A watcher whose socket has not drained for 1 s is dropped.
    watch: { limits: { stallTimeoutMs: 1000 }, tickMs: 100 },
  };
}

async function startController(): Promise<void> {
  controller = new AntreaController(config(), { logger, kubeConfig: kube.kubeConfig });
  await controller.start();
}

async function antreaCa(): Promise<string> {
  const cm = await core.readNamespacedConfigMap({ name: 'antrea-ca', namespace: 'kube-system' });
  return cm.data?.['ca.crt'] ?? '';
}

/** An HTTP/2 session per agent, re-created (with the CA published now) after it closes. */
function sessionFactory(
  state: { ca: string },
  settings?: { initialWindowSize: number },
): () => ClientHttp2Session {
  let s: ClientHttp2Session | undefined;
  return () => {
    if (s && !s.closed && !s.destroyed) return s;
    s = connect(`https://${SERVER_IP}:${port}`, {
      ca: state.ca,
      servername: 'antrea.kube-system.svc',
      ...(settings ? { settings } : {}),
    });
    const mine = s;
    sessions.add(mine);
    mine.on('error', () => {});
    mine.on('close', () => sessions.delete(mine));
    return mine;
  };
}

/** POSTs a protobuf body as an agent does; resolves with the HTTP status. */
function postProtobuf(
  session: ClientHttp2Session,
  path: string,
  token: string,
  body: Uint8Array,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/vnd.kubernetes.protobuf',
      accept: 'application/vnd.kubernetes.protobuf',
      authorization: `Bearer ${token}`,
    });
    req.on('response', (h) => resolve(Number(h[':status'])));
    req.on('error', reject);
    req.resume();
    req.end(body);
  });
}

async function agentToken(node?: string): Promise<string> {
  const bound = node ? ['--bound-object-kind=Node', `--bound-object-name=${node}`] : [];
  return (await kube.kubectl(['create', 'token', 'antrea-agent', '-n', 'kube-system', ...bound])).trim();
}

function simAgent(node: string, tokenNode: string | undefined = node): SimAgent {
  const state = { ca: '' };
  let token: string | undefined;
  const agent = new SimAgent({
    node,
    session: sessionFactory(state),
    // Like antrea-agent: the CA comes from antrea-ca, read again before every (re)connect.
    token: async () => {
      state.ca = await antreaCa();
      token ??= await agentToken(tokenNode);
      return token;
    },
  });
  agents.push(agent);
  agent.start();
  return agent;
}

async function createPod(ns: string, name: string, labels: Record<string, string>, node: string, ip: string) {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, namespace: ns, labels },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'none' }] },
    },
  });
  await setPodIP(ns, name, ip);
}

async function setPodIP(ns: string, name: string, ip: string): Promise<void> {
  // No kubelet here: write the status a kubelet would.
  const current = await core.readNamespacedPodStatus({ name, namespace: ns });
  current.status = { ...current.status, phase: 'Running', podIP: ip, podIPs: [{ ip }] };
  await core.replaceNamespacedPodStatus({ name, namespace: ns, body: current });
}

function sameAsStore(agent: SimAgent): boolean {
  return (
    agent.fullySynced &&
    JSON.stringify(digestAgentState(agent.state)) ===
      JSON.stringify(digestAgentState(expectedAgentState(controller, agent.node)))
  );
}

async function podCIDRs(): Promise<Record<string, string[]>> {
  const nodes = await core.listNode();
  return Object.fromEntries(nodes.items.map((n) => [n.metadata!.name!, n.spec?.podCIDRs ?? []]));
}

beforeAll(async () => {
  setup = await startExtensionServerSetup({ ip: SERVER_IP, logger });
  kube = setup.kube;
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
  port = await freePort(SERVER_IP);
  await installCrds(kube, [crdDir]);
  await setup.expose({ name: 'antrea', namespace: 'kube-system', port, portName: 'api' }, [
    // What Antrea's antrea-agent ClusterRole grants on the controller's API.
    ...serviceAccountWithClusterRole({
      name: 'antrea-agent',
      namespace: 'kube-system',
      clusterRole: 'antrea-agent',
      rules: [
        {
          apiGroups: ['controlplane.antrea.io'],
          resources: ['networkpolicies', 'appliedtogroups', 'addressgroups'],
          verbs: ['get', 'watch', 'list'],
        },
        { apiGroups: ['controlplane.antrea.io'], resources: ['nodestatssummaries'], verbs: ['create'] },
        {
          apiGroups: ['controlplane.antrea.io'],
          resources: ['networkpolicies/status'],
          verbs: ['create', 'get'],
        },
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['antrea-ca'],
          verbs: ['get', 'watch', 'list'],
        },
      ],
    }),
    ...['n1', 'n2', 'n3'].map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { team: 'x' } } },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'allow-b', namespace: 'x' },
      spec: {
        podSelector: { matchLabels: { app: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
      },
    },
  ]);
  await createPod('x', 'a', { app: 'a' }, 'n1', '10.10.0.1');
  await createPod('x', 'b1', { app: 'b' }, 'n2', '10.10.0.2');
  await createPod('x', 'b2', { app: 'b' }, 'n3', '10.10.0.3');
  await startController();
});

afterAll(async () => {
  if (binary && binary.exitCode === null) binary.kill('SIGKILL');
  for (const a of agents) a.stop();
  for (const s of sessions) s.destroy();
  await controller?.stop();
  await setup?.stop();
});

describe('antrea-controller against a real kube-apiserver', () => {
  it('serves networkpolicies through the aggregator and keeps AntreaControllerInfo current', async () => {
    const list = await waitFor(
      'networkpolicies through the aggregator',
      async () => {
        try {
          const l = JSON.parse(await kube.kubectl(['get', '--raw', `${BASE}/networkpolicies`]));
          return l.items?.length === 1 ? l : undefined;
        } catch {
          return undefined;
        }
      },
      60_000,
      500,
    );
    expect(list).toMatchObject({ kind: 'NetworkPolicyList' });
    expect(list.items[0]).toMatchObject({
      sourceRef: { type: 'K8sNetworkPolicy', namespace: 'x', name: 'allow-b' },
      rules: [{ direction: 'In', from: { addressGroups: [expect.any(String)] } }],
    });
    const ags = JSON.parse(await kube.kubectl(['get', '--raw', `${BASE}/addressgroups`]));
    expect(ags.items[0].groupMembers).toHaveLength(2);
    const ci = JSON.parse(
      await kube.kubectl([
        'get',
        '--raw',
        '/apis/system.antrea.io/v1beta1/controllerinfos/antrea-controller',
      ]),
    );
    expect(ci).toMatchObject({ kind: 'AntreaControllerInfo', version: 'test' });
    const crd = await waitFor('AntreaControllerInfo CR', async () => {
      try {
        const o = JSON.parse(
          await kube.kubectl(['get', 'antreacontrollerinfos', 'antrea-controller', '-o', 'json']),
        );
        return o.networkPolicyControllerInfo?.networkPolicyNum === 1 ? o : undefined;
      } catch {
        return undefined;
      }
    });
    // Static Tiers, as Antrea's initialize-tiers hook creates them.
    await controller.tiersInitialized;
    const tiers = JSON.parse(await kube.kubectl(['get', 'tiers', '-o', 'json'])).items.map(
      (t: { metadata: { name: string } }) => t.metadata.name,
    );
    expect(tiers).toEqual(expect.arrayContaining(['application', 'baseline', 'emergency']));
    expect(crd).toMatchObject({
      networkPolicyControllerInfo: { networkPolicyNum: 1, addressGroupNum: 1, appliedToGroupNum: 1 },
      controllerConditions: [{ type: 'ControllerHealthy', status: 'True' }],
      apiPort: port,
    });
  });

  it('assigns dual-stack podCIDRs to Nodes that have none', async () => {
    const cidrs = await waitFor('podCIDRs', async () => {
      const c = await podCIDRs();
      return Object.values(c).every((v) => v.length === 2) ? c : undefined;
    });
    const v4 = Object.values(cidrs).map((v) => v[0]);
    expect(new Set(v4).size).toBe(3);
    for (const [v4c, v6c] of Object.values(cidrs)) {
      expect(v4c).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(v6c).toMatch(/^fd00:10:244:[0-9a-f]*:*\/64$/);
    }
  });

  it('gives a Node-bound protobuf watcher exactly its span, then a patch when a Pod IP changes', async () => {
    const a1 = simAgent('n1');
    const a2 = simAgent('n2');
    await waitFor('agents synced', async () => a1.fullySynced && a2.fullySynced, 30_000);
    expect(sameAsStore(a1)).toBe(true);
    expect(a1.state.networkpolicies.size).toBe(1);
    expect([...a1.state.addressgroups.values()][0]!.size).toBe(2);
    // n2 only hosts a peer Pod: no policy applies there.
    expect(digestAgentState(a2.state)).toEqual({
      networkpolicies: {},
      appliedtogroups: {},
      addressgroups: {},
    });

    const before = a1.bytesReceived;
    await setPodIP('x', 'b1', '10.10.0.22');
    const ips = () =>
      [...[...a1.state.addressgroups.values()][0]!.values()].map((m) => formatIP(m.ips![0]!)).sort();
    await waitFor('patched', async () => ips().includes('10.10.0.22'), 30_000);
    expect(ips()).toEqual(['10.10.0.22', '10.10.0.3']);
    expect(sameAsStore(a1)).toBe(true);
    // One small patch, not the group again.
    expect(a1.bytesReceived - before).toBeLessThan(400);
  });

  it('takes protobuf NodeStatsSummary from an agent and serves the sums in stats.antrea.io', async () => {
    const np = JSON.parse(await kube.kubectl(['get', '--raw', `${BASE}/networkpolicies`])).items[0];
    const summary = encodeControlplaneObject('NodeStatsSummary', {
      metadata: { name: 'n1' },
      networkPolicies: [
        { networkPolicy: np.sourceRef, trafficStats: { packets: 10, bytes: 1000, sessions: 2 } },
      ],
    } as never);
    const state = { ca: await antreaCa() };
    const session = sessionFactory(state)();
    const post = (token: string) => postProtobuf(session, `${BASE}/nodestatssummaries`, token, summary);
    expect(await post(await agentToken('n1'))).toBe(201);
    expect(await post(await agentToken('n2'))).toBe(403);
    const stats = JSON.parse(
      await kube.kubectl(['get', '--raw', '/apis/stats.antrea.io/v1alpha1/namespaces/x/networkpolicystats']),
    );
    expect(stats.items).toEqual([
      expect.objectContaining({
        kind: 'NetworkPolicyStats',
        metadata: expect.objectContaining({ name: 'allow-b', namespace: 'x' }),
        trafficStats: { packets: 10, bytes: 1000, sessions: 2 },
      }),
    ]);
    session.close();
    const metrics = await controller.metricsRegistry.metrics();
    expect(metrics).toMatch(/antrea_controller_connected_agents [1-9]/);
    expect(metrics).toMatch(
      /antrea_controller_network_policy_sync_duration_seconds_count\{phase="flush"\} [1-9]/,
    );
  });

  it('refuses a Node-bound token the watch of another Node (403)', async () => {
    const wrong = simAgent('n2', 'n1');
    await waitFor('refused', async () => wrong.refusals.length >= 3, 30_000);
    expect(new Set(wrong.refusals)).toEqual(new Set([403]));
    wrong.stop();
  });

  it('turns a protobuf realization report from the agent into the ClusterNetworkPolicy status', async () => {
    await kube.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name: 'drop-b' },
        spec: {
          priority: 1,
          appliedTo: [{ podSelector: { matchLabels: { app: 'a' } } }],
          ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
        },
      }),
    });
    const acnp = JSON.parse(await kube.kubectl(['get', 'clusternetworkpolicies', 'drop-b', '-o', 'json']));
    const a1 = agents.find((a) => a.node === 'n1')!;
    // The agent on n1 receives the internal policy (named by the ACNP's UID)...
    await waitFor('n1 has the ACNP', async () => a1.state.networkpolicies.has(acnp.metadata.uid), 30_000);
    // ...and reports it realized, over protobuf, with its Node-bound token.
    const body = encodeControlplaneObject('NetworkPolicyStatus', {
      metadata: { name: acnp.metadata.uid },
      nodes: [{ nodeName: 'n1', generation: acnp.metadata.generation, realizationFailure: false }],
    } as never);
    const session = sessionFactory({ ca: await antreaCa() })();
    const token = await agentToken('n1');
    const status = await postProtobuf(
      session,
      `${BASE}/networkpolicies/${acnp.metadata.uid}/status`,
      token,
      body,
    );
    expect(status).toBe(201);
    const realized = await waitFor('ACNP status Realized', async () => {
      const o = JSON.parse(await kube.kubectl(['get', 'clusternetworkpolicies', 'drop-b', '-o', 'json']));
      return o.status?.phase === 'Realized' ? o.status : undefined;
    });
    expect(realized).toMatchObject({ currentNodesRealized: 1, desiredNodesRealized: 1 });
    session.close();
    await kube.kubectl(['delete', '--wait=false', 'clusternetworkpolicies', 'drop-b']);
    await waitFor('ACNP gone from n1', async () => !a1.state.networkpolicies.has(acnp.metadata.uid), 30_000);
  });

  it('closes a watcher that stops reading instead of holding its backlog', async () => {
    const state = { ca: await antreaCa() };
    // A window of 16 bytes: the server can hand the stream almost nothing.
    const session = sessionFactory(state, { initialWindowSize: 16 })();
    const token = await agentToken();
    const before = controller.server.watchCount;
    const req = session.request({
      ':path': `${BASE}/networkpolicies?watch=true`,
      accept: 'application/json',
      authorization: `Bearer ${token}`,
    });
    req.pause();
    const closed = new Promise<number>((resolve) => req.on('close', () => resolve(req.rstCode ?? -1)));
    await waitFor('watch open', async () => controller.server.watchCount > before);
    // Enough policy traffic (about 30 KiB of JSON) to fill the stream's buffer.
    const policies = Array.from({ length: 40 }, (_, i) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: `bulk-${i}`, namespace: 'x' },
      spec: {
        podSelector: { matchLabels: { app: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: `peer-${i}-${'x'.repeat(40)}` } } }] }],
      },
    }));
    await applyObjects(kube, policies);
    expect(await closed).toBe(h2.NGHTTP2_CANCEL);
    await waitFor('watch dropped', async () => controller.server.watchCount === before);
    const metrics = await controller.metricsRegistry.getSingleMetricAsString(
      'antrea_apiserver_watchers_closed_total',
    );
    expect(metrics).toMatch(/reason="slow"[^\n]* [1-9]/);
    // Its backlog went with it: nothing is left queued for anyone.
    const queued = await controller.metricsRegistry.getSingleMetricAsString(
      'antrea_apiserver_watch_queue_bytes',
    );
    expect(queued).toMatch(/stat="total"\} 0\b/);
    await kube.kubectl([
      'delete',
      '--wait=false',
      'networkpolicy',
      '-n',
      'x',
      ...policies.map((p) => p.metadata.name),
    ]);
  });

  it('after a controller restart, agents reconnect and hold what the new store holds; podCIDRs stay', async () => {
    const a1 = agents.find((a) => a.node === 'n1')!;
    await waitFor('n1 agent converged', async () => sameAsStore(a1), 30_000);
    const cidrsBefore = await podCIDRs();
    await controller.stop();
    // Changes while the controller is down: the reconnect must remove stale state and add new.
    // No kubelet to finish a graceful deletion: delete at once.
    await core.deleteNamespacedPod({ name: 'b2', namespace: 'x', gracePeriodSeconds: 0 });
    await createPod('x', 'b3', { app: 'b' }, 'n2', '10.10.0.4');
    await applyObjects(kube, [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n4' } }]);
    await startController();
    await waitFor('n1 agent reconnected with the new state', async () => sameAsStore(a1), 60_000, 100);
    const members = [...[...a1.state.addressgroups.values()][0]!.values()].map((m) => m.pod?.name).sort();
    expect(members).toEqual(['b1', 'b3']);
    const after = await waitFor('n4 podCIDRs', async () => {
      const c = await podCIDRs();
      return c['n4']?.length === 2 ? c : undefined;
    });
    for (const n of ['n1', 'n2', 'n3']) expect(after[n]).toEqual(cidrsBefore[n]);
    const all = Object.values(after).map((v) => v[0]);
    expect(new Set(all).size).toBe(all.length);
  });
  it('runs as the antrea-controller binary: flags, serves the same state, exits 0 on SIGTERM', async () => {
    const a1 = agents.find((a) => a.node === 'n1')!;
    await waitFor('n1 agent converged', async () => sameAsStore(a1), 30_000);
    const before = JSON.stringify(digestAgentState(a1.state));
    await controller.stop();
    const bytesAtStop = a1.bytesReceived;
    await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-controller'], { cwd: ROOT });
    // Port and NodeIPAM from antrea-controller.conf, the rest from flags.
    const conf = join(kube.dir, 'antrea-controller.conf');
    writeFileSync(
      conf,
      [
        `apiPort: ${port}`,
        'featureGates:',
        '  AntreaPolicy: true',
        'nodeIPAM:',
        '  enableNodeIPAM: true',
        '  clusterCIDRs: [10.244.0.0/16, "fd00:10:244::/56"]',
        '  nodeCIDRMaskSizeIPv4: 24',
        '  nodeCIDRMaskSizeIPv6: 64',
        'someFutureOption: ignored',
        '',
      ].join('\n'),
    );
    const log: string[] = [];
    binary = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/cmd/antrea-controller/main.js'),
        `--kubeconfig=${kube.kubeconfigPath}`,
        `--bind-address=${SERVER_IP}`,
        `--config=${conf}`,
        '--log-level=info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    binary.stdout!.on('data', (c: Buffer) => log.push(c.toString()));
    binary.stderr!.on('data', (c: Buffer) => log.push(c.toString()));
    const exited = new Promise<number | null>((resolve) => binary!.on('exit', (code) => resolve(code)));
    await waitFor(
      'binary serves the agents',
      async () => {
        if (binary!.exitCode !== null) throw new Error(`antrea-controller exited:\n${log.join('')}`);
        // New bytes: the agent re-listed from the binary, not just kept what it had.
        return (
          a1.bytesReceived > bytesAtStop &&
          a1.fullySynced &&
          JSON.stringify(digestAgentState(a1.state)) === before
        );
      },
      60_000,
      200,
    );
    // The controller keeps its CA across restarts (antrea-controller-tls), so the APIService is
    // not rewritten: the aggregator marks it available again on its own 30 s resync.
    const list = await waitFor(
      'aggregator to reach the binary',
      async () => JSON.parse(await kube.kubectl(['get', '--raw', `${BASE}/networkpolicies`])),
      60_000,
      1000,
    );
    expect(list.items).toHaveLength(1);
    // NodeIPAM from the file: a new Node gets podCIDRs that no other Node has.
    await applyObjects(kube, [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n5' } }]);
    const cidrs = await waitFor('n5 podCIDRs', async () => {
      const c = await podCIDRs();
      return c['n5']?.length === 2 ? c : undefined;
    });
    const v4 = Object.values(cidrs).map((v) => v[0]);
    expect(new Set(v4).size).toBe(v4.length);
    binary.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(log.join('')).toContain('antrea-controller stopped');
  });
});
