// antctl in controller mode against a real kube-apiserver: the Antrea APIServices point at a fake
// controller on a veth address (the aggregator refuses loopback), so every aggregated request in
// these tests really goes kubeconfig -> kube-apiserver -> aggregator -> controller.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  apiServiceObject,
  applyObjects,
  cachedBinDir,
  type ExtensionServerSetup,
  getRawWhenServed,
  installCrds,
  type KubeCluster,
  makeTempDir,
  startExtensionServerSetup,
  type TempDir,
  TestPki,
} from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_BYTES, type SeenRequest, startFakeController } from './fake-controller.js';
import { antctl, eventually } from './helpers.js';

// Not 198.18.252.1: test/controller-apiserver serves there, and another run may be under way.
const CONTROLLER_IP = '198.18.255.1';
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const execFileP = promisify(execFile);

describe('antctl controller mode through the aggregation layer', () => {
  let setup: ExtensionServerSetup;
  let kube: KubeCluster;
  let server: Server;
  let seen: SeenRequest[];
  let logLevel: { value: number };
  let tmp: TempDir;
  let kc: string;

  beforeAll(async () => {
    setup = await startExtensionServerSetup({ ip: CONTROLLER_IP });
    kube = setup.kube;
    kc = kube.kubeconfigPath;
    tmp = makeTempDir('antctl');
    const pki = new TestPki(tmp.path);
    const ca = await pki.createCa('antrea-ca', 'antrea-ca');
    const serving = await pki.issue(ca, {
      name: 'antrea',
      commonName: 'antrea-controller',
      usage: 'server',
      // localhost: the name antctl verifies agent certificates against (the fake serves agents too).
      dnsNames: ['antrea.kube-system.svc', 'antrea.kube-system.svc.cluster.local', 'localhost'],
      ipAddresses: [CONTROLLER_IP],
    });
    const fake = await startFakeController({
      ip: CONTROLLER_IP,
      cert: serving.cert,
      key: serving.key,
      clientCas: [kube.frontProxyCa.cert, kube.ca.cert],
    });
    server = fake.server;
    seen = fake.seen;
    logLevel = fake.logLevel;
    const port = fake.port;
    const caBundlePem = readFileSync(ca.cert, 'utf8');
    const service = { name: 'antrea', namespace: 'kube-system' };
    await setup.expose({ ...service, port }, [
      apiServiceObject({ group: 'controlplane.antrea.io', version: 'v1beta2', service, caBundlePem }),
      apiServiceObject({ group: 'system.antrea.io', version: 'v1beta1', service, caBundlePem }),
      // What the direct (non-aggregated) path needs: the controller's Node and the CA.
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'node-a' },
        status: { addresses: [{ type: 'InternalIP', address: CONTROLLER_IP }] },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'antrea-ca', namespace: 'kube-system' },
        data: { 'ca.crt': caBundlePem },
      },
      // A Secret that a support bundle must never carry.
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'antctl-canary', namespace: 'kube-system' },
        stringData: { password: 'do-not-leak-4f1c' },
      },
    ]);
    // kubectl cannot set Node status on create; the status subresource takes it.
    await kube.kubectl([
      'patch',
      'node',
      'node-a',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: CONTROLLER_IP }] } }),
    ]);
    await installCrds(
      kube,
      ['antreacontrollerinfo', 'antreaagentinfo'].map((crd) => join(repo, `build/crds/crd-${crd}.yaml`)),
    );
    await applyObjects(kube, [
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'AntreaControllerInfo',
        metadata: { name: 'antrea-controller' },
        version: 'v0.1.0-antrea-ts',
        podRef: { kind: 'Pod', namespace: 'kube-system', name: 'antrea-controller-5d9f' },
        nodeRef: { kind: 'Node', name: 'node-a' },
        apiPort: port,
      },
    ]);
    // Wait until the aggregator routes to us.
    await getRawWhenServed(kube, '/apis/controlplane.antrea.io/v1beta2/networkpolicies');
    await getRawWhenServed(kube, '/apis/system.antrea.io/v1beta1/controllerinfos/antrea-controller');
  });

  afterAll(async () => {
    server?.close();
    await setup?.stop();
    tmp?.remove();
  });

  const viaAggregator = (path: string) =>
    seen.filter(
      (s) => s.url.startsWith(path) && s.remoteUser === 'admin' && s.clientCN === 'front-proxy-client',
    );

  it('get networkpolicy lists through the aggregator as the kubeconfig user', async () => {
    const before = viaAggregator('/apis/controlplane.antrea.io/v1beta2/networkpolicies').length;
    const r = await antctl(['get', 'networkpolicy', '--kubeconfig', kc]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe(
      'NAME                                 APPLIED-TO     RULES SOURCE                             TIER-PRIORITY PRIORITY',
    );
    expect(r.out).toContain('K8sNetworkPolicy:default/allow-web');
    expect(viaAggregator('/apis/controlplane.antrea.io/v1beta2/networkpolicies').length).toBe(before + 1);
  });

  it('get networkpolicy <name> -o yaml, and "not found" for a missing name', async () => {
    const r = await antctl(['get', 'netpol', 'a1f00000-0000-4000-8000-000000000001', '-o', 'yaml', '-k', kc]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('type: K8sNetworkPolicy');
    const miss = await antctl(['get', 'netpol', 'nope', '-k', kc]);
    expect(miss.code).toBe(1);
    expect(miss.err).toMatch(/^Error: networkpolicy "nope" not found/);
  });

  it('get addressgroup and appliedtogroup decode members through the aggregator', async () => {
    const ag = await antctl(['get', 'addressgroup', '-k', kc]);
    expect(ag.out).toContain('ag-web   10.10.0.2,10.10.1.3 192.168.77.10');
    const atg = await antctl(['get', 'atg', '-o', 'json', '-k', kc]);
    expect(JSON.parse(atg.out).map((g: { name: string }) => g.name)).toEqual(['atg-db', 'atg-web']);
    expect(viaAggregator('/apis/controlplane.antrea.io/v1beta2/addressgroups').length).toBeGreaterThan(0);
    expect(viaAggregator('/apis/controlplane.antrea.io/v1beta2/appliedtogroups').length).toBeGreaterThan(0);
  });

  it('get controllerinfo and version go through the system.antrea.io APIService', async () => {
    const ci = await antctl(['get', 'controllerinfo', '-k', kc]);
    expect(ci.code).toBe(0);
    expect(ci.out.split('\n')[1]).toMatch(
      /^kube-system\/antrea-controller-5d9f node-a Healthy 3 +2 +2 +2 +$/,
    );
    const v = await antctl(['version', '-k', kc]);
    expect(v.out).toBe('controllerVersion: v0.1.0-antrea-ts\nantctlVersion: 0.1.0-antrea-ts\n');
    expect(
      viaAggregator('/apis/system.antrea.io/v1beta1/controllerinfos/antrea-controller').length,
    ).toBeGreaterThan(0);
  });

  it('finds the kubeconfig through KUBECONFIG as well as --kubeconfig', async () => {
    const r = await antctl(['get', 'ag', '-o', 'json'], { KUBECONFIG: kc });
    expect(r.code).toBe(0);
    const none = await antctl(['get', 'ag'], { HOME: tmp.path });
    expect(none.code).toBe(1);
    expect(none.err).toContain('failed to resolve kubeconfig');
  });

  it('query networkpolicyevaluation posts through the aggregator', async () => {
    const r = await antctl(['query', 'netpoleval', '-S', 'default/web-0', '-D', 'prod/db-0', '-k', kc]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[1]).toMatch(/^annp-deny prod +AntreaNetworkPolicy 0 +Out +Drop/);
    const post = seen.find(
      (s) =>
        s.method === 'POST' &&
        s.url.startsWith('/apis/controlplane.antrea.io/v1beta2/networkpolicyevaluation'),
    );
    expect(post?.remoteUser).toBe('admin');
    expect(JSON.parse(post?.body ?? '{}').request.source.pod).toEqual({
      namespace: 'default',
      name: 'web-0',
    });
  });

  it('featuregates, query endpoint and log-level reach the controller directly at its Node IP, verified by the antrea-ca CA', async () => {
    const fg = await antctl(['get', 'featuregates', '-k', kc]);
    expect(fg.err).toBe('');
    expect(fg.out).toContain(
      'Antrea Controller Feature Gates\nFEATUREGATE     STATUS      VERSION\nTraceflow       Enabled     BETA\n',
    );
    const direct = seen.filter((s) => s.url === '/featuregates');
    expect(direct.at(-1)?.clientCN).toBe('admin');
    expect(direct.at(-1)?.remoteUser).toBeUndefined();
    const ep = await antctl(['query', 'endpoint', '-n', 'prod', '-p', 'db-0', '-k', kc]);
    expect(ep.out).toContain('Endpoint prod/db-0\nApplied Policies on Endpoint:\n');
    const ll = await antctl(['log-level', '4', '-k', kc]);
    expect(ll.code).toBe(0);
    expect(logLevel.value).toBe(4);
  });

  it('supportbundle downloads the controller bundle and a clusterinfo without Secrets', async () => {
    const dir = join(tmp.path, 'bundles');
    const r = await antctl(['supportbundle', '-d', dir, '-k', kc]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['clusterinfo', 'controller.tar.gz']);
    expect(readFileSync(join(dir, 'controller.tar.gz'))).toEqual(
      Buffer.concat([BUNDLE_BYTES, Buffer.from('controller')]),
    );
    const info = readFileSync(join(dir, 'clusterinfo'), 'utf8');
    expect(info).toContain('#nodes\n');
    expect(info).toContain('name: antrea-ca');
    expect(info).not.toContain('do-not-leak-4f1c');
    expect(info).not.toContain('kind: Secret');
    expect(
      seen.some(
        (s) =>
          s.method === 'POST' &&
          s.url === '/apis/system.antrea.io/v1beta1/supportbundles' &&
          s.remoteUser === 'admin',
      ),
    ).toBe(true);
  });

  it('supportbundle for a Node collects its agent bundle with an antctl ServiceAccount token, trusting apiCABundle', async () => {
    await kube.kubectl(['-n', 'kube-system', 'create', 'serviceaccount', 'antctl']);
    await kube.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'AntreaAgentInfo',
        metadata: { name: 'node-a' },
        version: 'v0.1.0-antrea-ts',
        nodeRef: { kind: 'Node', name: 'node-a' },
        podRef: { kind: 'Pod', namespace: 'kube-system', name: 'antrea-agent-abcde' },
        apiPort: server.address() === null ? 0 : (server.address() as { port: number }).port,
        apiCABundle: readFileSync(join(tmp.path, 'antrea-ca.crt')).toString('base64'),
      }),
    });
    const dir = join(tmp.path, 'agent-bundles');
    const r = await antctl(['supportbundle', 'node-*', '-d', dir, '-k', kc]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['agent_node-a.tar.gz', 'clusterinfo']);
    expect(readFileSync(join(dir, 'agent_node-a.tar.gz'))).toEqual(
      Buffer.concat([BUNDLE_BYTES, Buffer.from('agent')]),
    );
    const agentCalls = seen.filter((s) =>
      s.url.startsWith('/apis/system.antrea.io/v1beta1/supportbundles/agent'),
    );
    expect(agentCalls.length).toBeGreaterThan(0);
    // Not the caller's credentials: a bearer token of the antctl ServiceAccount, no client cert.
    expect(agentCalls[0]?.authorization).toMatch(/^Bearer ey/);
    expect(agentCalls[0]?.clientCN).toBeUndefined();
    const none = await antctl(['supportbundle', 'no-such-node', '-d', join(tmp.path, 'none'), '-k', kc]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('no matched Nodes found to collect agent bundles');
  });

  it('explains an unavailable APIService', async () => {
    // The controller goes away for good (the remaining test relies on that).
    server.close();
    server.closeAllConnections();
    const r = await eventually(async () => {
      const x = await antctl(['get', 'netpol', '-k', kc]);
      if (x.code === 0) throw new Error('still served');
      return x;
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain('is the APIService v1beta2.controlplane.antrea.io available?');
    expect(r.err).toContain('kubectl get apiservice v1beta2.controlplane.antrea.io');
  });

  it('runs as the built binary and as a kubectl plugin (kubectl antctl)', async () => {
    // The root build does not reference cmd/antctl yet, so build it here.
    await execFileP('npx', ['tsc', '-b', join(repo, 'cmd/antctl')], { cwd: repo });
    expect(existsSync(join(repo, 'dist/cmd/antctl/main.js'))).toBe(true);
    const bin = await execFileP(join(repo, 'cmd/antctl/antctl'), [
      'version',
      '-o',
      'json',
      '--kubeconfig',
      kc,
    ]).catch((e: { stdout: string; stderr: string; code: number }) => e);
    // The controller was stopped by the previous test: client version printed, exit status 1.
    expect(JSON.parse(bin.stdout)).toEqual({ antctlVersion: '0.1.0-antrea-ts' });
    expect((bin as { code?: number }).code).toBe(1);
    const plugin = await execFileP(join(cachedBinDir(), 'kubectl'), ['antctl', 'completion', 'bash'], {
      env: { ...process.env, PATH: `${join(repo, 'cmd/antctl')}:${process.env['PATH']}`, KUBECONFIG: kc },
    });
    expect(plugin.stdout).toContain('complete -o default -F __antctl_complete antctl');
    const help = await execFileP(join(cachedBinDir(), 'kubectl'), ['antctl', '--help'], {
      env: { ...process.env, PATH: `${join(repo, 'cmd/antctl')}:${process.env['PATH']}`, KUBECONFIG: kc },
    });
    expect(help.stdout).toContain('Usage: kubectl antctl [options] [command]');
    // kubectl's own completion of plugin arguments goes through kubectl_complete-antctl.
    const complete = await execFileP(
      join(cachedBinDir(), 'kubectl'),
      ['__complete', 'antctl', 'get', 'add'],
      {
        env: { ...process.env, PATH: `${join(repo, 'cmd/antctl')}:${process.env['PATH']}`, KUBECONFIG: kc },
      },
    );
    expect(complete.stdout).toBe('addressgroup\naddressgroups\n:4\n');
  });
});
