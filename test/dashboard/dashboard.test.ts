import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Traceflow } from '@antrea-ts/apis';
import { AntreaController, SimAgent } from '@antrea-ts/controller';
import { Dashboard, KubeClusterReader } from '@antrea-ts/dashboard';
import {
  applyObjects,
  freePort,
  installCrds,
  type KubeCluster,
  startKube,
  waitFor,
} from '@antrea-ts/harness';
import pino from 'pino';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

// The dashboard as antrea-controller serves it, in headless Chromium (Debian's, driven by
// playwright-core): a real kube-apiserver, the controller composed in-process, objects created
// through the API, an agent watching the controller, realization and stats reported over the
// controller's HTTPS API with a Node-bound token, as antrea-agent does.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(ROOT, 'artifacts', 'dashboard');
const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = join(ROOT, 'build', 'crds');

let kube: KubeCluster;
let controller: AntreaController;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;
let agent: SimAgent | undefined;
let binary: ChildProcess | undefined;
let base: string;
let apiPort: number;

const apply = (objects: object[]) => applyObjects(kube, objects);

const getJson = async (args: string[]) => JSON.parse(await kube.kubectl(['get', ...args, '-o', 'json']));

const heartbeat = (ageMs: number) => new Date(Date.now() - ageMs).toISOString().replace(/\.\d+Z$/, 'Z');

function agentInfo(node: string, ageMs: number, controllerUp: boolean) {
  const at = heartbeat(ageMs);
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'AntreaAgentInfo',
    metadata: { name: node },
    version: 'v2.8.0-ts.test',
    nodeRef: { kind: 'Node', name: node },
    nodeSubnets: [node === 'n1' ? '10.244.1.0/24' : '10.244.2.0/24'],
    localPodNum: 1,
    ovsInfo: { version: '3.1.0', bridgeName: 'br-int', flowTable: { Classifier: 3, Output: 2 } },
    agentConditions: [
      { type: 'AgentHealthy', status: 'True', lastHeartbeatTime: at },
      { type: 'ControllerConnectionUp', status: controllerUp ? 'True' : 'False', lastHeartbeatTime: at },
      { type: 'OVSDBConnectionUp', status: 'True', lastHeartbeatTime: at },
      { type: 'OpenflowConnectionUp', status: 'True', lastHeartbeatTime: at },
    ],
  };
}

/** antrea-agent's ServiceAccount, ClusterRole and binding, as the deployment manifest has them. */
function agentRbac(): object[] {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'build', 'yamls', 'antrea.yml'), 'utf8'));
  return docs
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
    .filter(
      (o) =>
        o?.metadata?.name === 'antrea-agent' &&
        ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind ?? ''),
    ) as object[];
}

async function nodeToken(node: string): Promise<string> {
  const args = ['create', 'token', 'antrea-agent', '-n', 'kube-system'];
  return (await kube.kubectl([...args, '--bound-object-kind=Node', `--bound-object-name=${node}`])).trim();
}

/** POSTs JSON to the controller's API as an agent of `node` would; resolves the HTTP status. */
async function postAsAgent(node: string, path: string, body: object): Promise<number> {
  const token = await nodeToken(node);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: apiPort,
        method: 'POST',
        path: `/apis/controlplane.antrea.io/v1beta2/${path}`,
        ca: controller.certificates.current().caBundlePem,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  await apply([
    ...agentRbac(),
    ...['n1', 'n2'].map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
  ]);
  for (const [name, app, node, ip] of [
    ['a1', 'a', 'n1', '10.244.1.2'],
    ['b1', 'b', 'n2', '10.244.2.2'],
  ] as const) {
    await apply([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'x', labels: { app } },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'none' }] },
      },
    ]);
    // No kubelet here: write the status a kubelet would.
    const status = { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } };
    await kube.kubectl([
      'patch',
      'pod',
      name,
      '-n',
      'x',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    ]);
  }

  apiPort = await freePort('127.0.0.1');
  controller = new AntreaController(
    {
      version: 'v2.8.0-ts.test',
      bindAddress: '127.0.0.1',
      apiPort,
      service: { name: 'antrea', namespace: 'kube-system' },
      publishCaBundle: false,
      antreaPolicy: true,
      enablePrometheusMetrics: true,
      controllerInfoIntervalMs: 1000,
    },
    { logger, kubeConfig: kube.kubeConfig },
  );
  await controller.start();
  dashboard = new Dashboard(
    { port: 0, refreshMs: 1000 },
    { logger, cluster: new KubeClusterReader(kube.kubeConfig), controller },
  );
  await dashboard.start();
  base = `http://127.0.0.1:${dashboard.address.port}`;

  mkdirSync(SHOTS, { recursive: true });
  // As root, Chromium's sandbox cannot start; the page is our own.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
});

afterAll(async () => {
  if (binary && binary.exitCode === null) binary.kill('SIGKILL');
  agent?.stop();
  await browser?.close();
  await dashboard?.stop();
  await controller?.stop();
  await kube?.stop();
});

describe('dashboard in headless Chromium', () => {
  it('shows the controller and the agents with health, heartbeat age and their watch', async () => {
    await apply([agentInfo('n1', 5_000, true), agentInfo('n2', 600_000, false)]);
    // n1's agent watches the controller (n2's does not): the page shows which agents are connected.
    const token = await nodeToken('n1');
    const ca = controller.certificates.current().caBundlePem;
    const session = connect(`https://127.0.0.1:${apiPort}`, { ca });
    session.on('error', () => {});
    agent = new SimAgent({ node: 'n1', session: () => session, token: () => token });
    agent.start();
    await waitFor('n1 connected', async () => controller.api.connectedNodes().has('n1'), 60_000);

    await page.goto(base);
    const n1 = page.locator('#agents tr[data-node="n1"]');
    const n2 = page.locator('#agents tr[data-node="n2"]');
    await n1.waitFor();
    expect(await n1.locator('td').allInnerTexts()).toEqual([
      'n1',
      'Healthy',
      expect.stringMatching(/^\d+ s$/),
      '-',
      'yes',
      'v2.8.0-ts.test',
      '1',
      '5',
      '10.244.1.0/24',
    ]);
    // Ten minutes without a heartbeat is stale, whatever the conditions say.
    expect(await n2.locator('td').nth(1).innerText()).toBe('Stale');
    expect(await n2.locator('td').nth(3).innerText()).toBe('ControllerConnectionUp');
    expect(await n2.locator('td').nth(4).innerText()).toBe('no');
    // Problems first.
    expect(await page.locator('#agent-summary').innerText()).toBe('1 Stale, 1 Healthy');
    expect(
      await page
        .locator('#agents tr[data-node]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-node'))),
    ).toEqual(['n2', 'n1']);
    const controllerTable = page.locator('#controller');
    expect(await controllerTable.locator('tr').first().innerText()).toContain('Healthy');
    expect(await controllerTable.innerText()).toMatch(/connected agents\s+1/);
    await shot('health');
    // The open page follows the cluster: n1's agent reports more Pods, the row changes in place.
    const marker = await page.evaluate(() => {
      (globalThis as unknown as { marker: number }).marker = 42;
      return 42;
    });
    await apply([{ ...agentInfo('n1', 0, true), localPodNum: 7 }]);
    await n1.locator('td', { hasText: /^7$/ }).waitFor({ timeout: 30_000 });
    // Same document (refreshed in place, not reloaded).
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(marker);
  });

  it('shows policies with realization status from the agents and per-rule stats', async () => {
    await apply([
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name: 'drop-b' },
        spec: {
          priority: 5,
          tier: 'securityops',
          appliedTo: [{ podSelector: { matchLabels: { app: 'a' } } }],
          ingress: [
            { name: 'drop-from-b', action: 'Drop', from: [{ podSelector: { matchLabels: { app: 'b' } } }] },
            { name: 'allow-rest', action: 'Allow' },
          ],
        },
      },
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
    const acnp = await getJson(['clusternetworkpolicies', 'drop-b']);
    const np = await getJson(['networkpolicy', 'allow-b', '-n', 'x']);
    // The agent on n1 gets both internal policies (named by their source UID)...
    await waitFor(
      'n1 has both policies',
      async () =>
        agent!.state.networkpolicies.has(acnp.metadata.uid) &&
        agent!.state.networkpolicies.has(np.metadata.uid),
      60_000,
    );
    // ...and reports the ACNP realized and the traffic it counted, as antrea-agent does.
    const uid = acnp.metadata.uid as string;
    expect(
      await postAsAgent('n1', `networkpolicies/${uid}/status`, {
        apiVersion: 'controlplane.antrea.io/v1beta2',
        kind: 'NetworkPolicyStatus',
        metadata: { name: uid },
        nodes: [{ nodeName: 'n1', generation: acnp.metadata.generation }],
      }),
    ).toBe(201);
    const ref = (u: string) => controller.networkPolicies.get(u)!.object.sourceRef;
    expect(
      await postAsAgent('n1', 'nodestatssummaries', {
        apiVersion: 'controlplane.antrea.io/v1beta2',
        kind: 'NodeStatsSummary',
        metadata: { name: 'n1' },
        antreaClusterNetworkPolicies: [
          {
            networkPolicy: ref(uid),
            trafficStats: { packets: 12, bytes: 1200, sessions: 4 },
            ruleTrafficStats: [
              { name: 'drop-from-b', trafficStats: { packets: 12, bytes: 1200, sessions: 4 } },
            ],
          },
        ],
        networkPolicies: [
          { networkPolicy: ref(np.metadata.uid), trafficStats: { packets: 30, bytes: 4500, sessions: 3 } },
        ],
      }),
    ).toBe(201);
    await waitFor(
      'ACNP Realized',
      async () => (await getJson(['clusternetworkpolicies', 'drop-b'])).status?.phase === 'Realized',
      60_000,
    );

    await page.goto(`${base}/policies`);
    const acnpRow = page.locator('tr[data-policy="AntreaClusterNetworkPolicy//drop-b"]');
    await acnpRow.waitFor();
    expect(await acnpRow.locator('td.phase').innerText()).toBe('Realized');
    expect(await acnpRow.locator('td.realized').innerText()).toBe('1/1');
    const cells = (row: string) => page.locator(row).locator(':scope > td');
    expect(
      (await cells('tr[data-policy="AntreaClusterNetworkPolicy//drop-b"]').allInnerTexts()).slice(0, 11),
    ).toEqual(['ACNP', '', 'drop-b', 'securityops', '5', 'Realized', '1/1', '1', '12', '1200', '4']);
    expect(await acnpRow.locator('tr[data-rule="drop-from-b"] td').allInnerTexts()).toEqual([
      'drop-from-b',
      'Ingress',
      'Drop',
      '12',
      '1200',
      '4',
    ]);
    expect(await acnpRow.locator('tr[data-rule="allow-rest"] td').allInnerTexts()).toEqual([
      'allow-rest',
      'Ingress',
      'Allow',
      '0',
      '0',
      '0',
    ]);
    expect(
      (await cells('tr[data-policy="K8sNetworkPolicy/x/allow-b"]').allInnerTexts()).slice(0, 11),
    ).toEqual([
      'K8s NP',
      'x',
      'allow-b',
      '',
      '',
      'not reported for K8s policies',
      '-',
      '1',
      '30',
      '4500',
      '3',
    ]);
    await shot('policies');
    // Typing into the filter is not undone by the page's refresh; Enter filters.
    await page.fill('#q', 'drop');
    await page.waitForTimeout(3000); // three refresh periods: the field keeps what was typed
    expect(await page.inputValue('#q')).toBe('drop');
    await Promise.all([page.waitForURL(/[?&]q=drop/), page.press('#q', 'Enter')]);
    expect(await page.locator('h1').innerText()).toBe('Policies (1 of 2)');
    expect(await page.locator('tr[data-policy]').count()).toBe(1);
  });

  it('creates a Traceflow from the form and shows its phase and results as they arrive', async () => {
    await page.goto(`${base}/traceflow`);
    await page.fill('#srcNamespace', 'x');
    await page.fill('#srcPod', 'a1');
    await page.fill('#dstName', 'b1');
    await page.selectOption('#protocol', 'TCP');
    await page.fill('#dstPort', '8080');
    await shot('traceflow-form');
    await Promise.all([
      page.waitForURL(/\/traceflow\/a1-to-b1-[a-z0-9]{5}$/),
      page.click('button[type=submit]'),
    ]);
    const name = new URL(page.url()).pathname.split('/').pop()!;
    const tf = (await getJson(['traceflows', name])) as Traceflow;
    expect(tf.spec).toEqual({
      source: { namespace: 'x', pod: 'a1' },
      destination: { namespace: 'x', pod: 'b1' },
      packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 8080, flags: 2 } } },
    });
    expect(await page.locator('#phase').innerText()).toBe('Pending');

    // What the Traceflow controller and agents write, step by step; the open page follows.
    const writeStatus = (status: object) =>
      kube.kubectl([
        'patch',
        'traceflow',
        name,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status }),
      ]);
    await writeStatus({
      phase: 'Running',
      dataplaneTag: 7,
      startTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    await page.locator('#phase', { hasText: 'Running' }).waitFor({ timeout: 30_000 });
    await writeStatus({
      phase: 'Succeeded',
      results: [
        {
          node: 'n1',
          role: 'sender',
          timestamp: 1763726400,
          observations: [
            { component: 'SpoofGuard', action: 'Forwarded' },
            {
              component: 'Forwarding',
              componentInfo: 'Output',
              action: 'Forwarded',
              tunnelDstIP: '192.168.77.3',
            },
          ],
        },
        {
          node: 'n2',
          role: 'receiver',
          timestamp: 1763726400,
          observations: [
            { component: 'Forwarding', componentInfo: 'Classification', action: 'Received' },
            {
              component: 'NetworkPolicy',
              componentInfo: 'IngressRule',
              action: 'Dropped',
              networkPolicy: 'AntreaClusterNetworkPolicy:drop-b',
              networkPolicyRule: 'drop-from-b',
            },
          ],
        },
      ],
    });
    await page.locator('#phase', { hasText: 'Succeeded' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('main').getAttribute('data-final')).toBe('true');
    expect(await page.locator('table.results[data-node="n1"] tr.observation').allInnerTexts()).toEqual([
      'SpoofGuard\tForwarded\t',
      'Forwarding (Output)\tForwarded\ttunnel to 192.168.77.3',
    ]);
    expect(await page.locator('table.results[data-node="n2"] tr.observation').nth(1).innerText()).toBe(
      'NetworkPolicy (IngressRule)\tDropped\tpolicy AntreaClusterNetworkPolicy:drop-b, rule drop-from-b',
    );
    await shot('traceflow-result');

    // The list shows it with its phase.
    await page.goto(`${base}/traceflow`);
    expect(await page.locator(`#traceflows tr[data-traceflow="${name}"]`).innerText()).toContain('Succeeded');
  });

  it('refuses a bad form with the reason next to it, creating nothing', async () => {
    const before = (await getJson(['traceflows'])).items.length;
    await page.goto(`${base}/traceflow`);
    await page.fill('#srcNamespace', 'x');
    await page.fill('#srcPod', 'a1');
    await page.selectOption('#dstType', 'ip');
    await page.fill('#dstIP', '10.0.0.300');
    await page.click('button[type=submit]');
    expect(await page.locator('#form-error').innerText()).toBe(
      'destination IP: "10.0.0.300" is not an IP address',
    );
    expect(await page.inputValue('#dstIP')).toBe('10.0.0.300');
    expect((await getJson(['traceflows'])).items.length).toBe(before);
  });

  it('is served by the antrea-controller binary with --dashboard-port, on loopback, until SIGTERM', async () => {
    await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-controller'], { cwd: ROOT });
    const [port, dashboardPort] = [await freePort('127.0.0.1'), await freePort('127.0.0.1')];
    const log: string[] = [];
    binary = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/cmd/antrea-controller/main.js'),
        `--kubeconfig=${kube.kubeconfigPath}`,
        '--bind-address=127.0.0.1',
        `--api-port=${port}`,
        '--no-publish-ca-bundle',
        `--dashboard-port=${dashboardPort}`,
        '--log-level=info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    binary.stdout!.on('data', (c: Buffer) => log.push(c.toString()));
    binary.stderr!.on('data', (c: Buffer) => log.push(c.toString()));
    const exited = new Promise<number | null>((resolve) => binary!.on('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${dashboardPort}`;
    await waitFor(
      'the binary serves the dashboard',
      async () => {
        if (binary!.exitCode !== null) throw new Error(`antrea-controller exited:\n${log.join('')}`);
        return (await fetch(`${url}/healthz`)).ok;
      },
      60_000,
      200,
    );
    await page.goto(`${url}/policies`);
    // Its own computation: the ACNP with a span of one Node. (Its status controller has no agent
    // report yet, so the phase it writes is not asserted here.)
    const row = page.locator('tr[data-policy="AntreaClusterNetworkPolicy//drop-b"]');
    await row.waitFor();
    expect((await row.locator(':scope > td').allInnerTexts()).slice(0, 5)).toEqual([
      'ACNP',
      '',
      'drop-b',
      'securityops',
      '5',
    ]);
    expect(await row.locator(':scope > td').nth(7).innerText()).toBe('1');
    expect(log.join('')).toMatch(/"host":"127\.0\.0\.1","port":\d+,"msg":"dashboard listening"/);
    // The binary also runs the Traceflow controller: a Traceflow from its form goes Running, then,
    // with no agent to inject the packet, Failed at its timeout; the page follows both.
    await page.goto(`${url}/traceflow`);
    await page.fill('#srcNamespace', 'x');
    await page.fill('#srcPod', 'a1');
    await page.fill('#dstName', 'b1');
    await page.fill('#timeout', '3');
    await Promise.all([page.waitForURL(/\/traceflow\/a1-to-b1-/), page.click('button[type=submit]')]);
    await page.locator('#phase', { hasText: 'Failed' }).waitFor({ timeout: 60_000 });
    const tf = (await getJson(['traceflows', new URL(page.url()).pathname.split('/').pop()!])) as Traceflow;
    expect(tf.status).toMatchObject({ phase: 'Failed', startTime: expect.any(String) });
    expect(await page.locator('#traceflow').innerText()).toContain(tf.status!.reason!);
    expect(await page.locator('#no-results').innerText()).toBe('No observations.');
    await shot('traceflow-failed');
    binary.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
