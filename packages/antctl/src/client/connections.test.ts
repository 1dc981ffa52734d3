import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPBACK_TOKEN_PATH } from '@antrea-ts/apis';
import { afterAll, describe, expect, it } from 'vitest';
import { AntctlError } from '../errors.js';
import { decideMode } from '../mode.js';
import { type ConnectionEnv, createConnections, getJson } from './connections.js';

const dir = mkdtempSync(join(tmpdir(), 'antctl-conn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(name: string, server: string, currentContext = 'ctx'): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "${server}", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: tok-${name}}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ${currentContext}
`,
  );
  return path;
}

const env = (e: Partial<ConnectionEnv>): ConnectionEnv => ({
  timeoutMs: 0,
  fileExists: (p) => existsSync(p),
  readFile: () => '',
  ...e,
});

async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return AntctlError.is(err) ? `${err.code}: ${err.message}` : String(err);
  }
}

describe('kubeconfig resolution (Antrea runtime.ResolveKubeconfig)', () => {
  const controller = decideMode(undefined);
  it('uses --kubeconfig and fails clearly when it does not exist', async () => {
    const kc = kubeconfig('explicit', 'https://10.1.1.1:6443');
    expect((await createConnections(controller, env({ kubeconfig: kc })).kube()).target).toBe(
      'https://10.1.1.1:6443',
    );
    expect(await code(createConnections(controller, env({ kubeconfig: join(dir, 'missing') })).kube())).toBe(
      `ANTCTL_KUBECONFIG: failed to resolve kubeconfig: kubeconfig file does not exist at path '${join(dir, 'missing')}'`,
    );
  });
  it('takes the first existing file of KUBECONFIG, then ~/.kube/config', async () => {
    const kc = kubeconfig('fromenv', 'https://10.2.2.2:6443');
    const c = createConnections(controller, env({ kubeconfigEnv: `${join(dir, 'nope')}:${kc}` }));
    expect((await c.kube()).target).toBe('https://10.2.2.2:6443');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), readFileSync(kubeconfig('h', 'https://10.3.3.3:6443')));
    expect((await createConnections(controller, env({ homeDir: home })).kube()).target).toBe(
      'https://10.3.3.3:6443',
    );
  });
  it('explains a kubeconfig without a usable current context', async () => {
    const kc = kubeconfig('nocontext', 'https://10.4.4.4:6443', 'other');
    expect(await code(createConnections(controller, env({ kubeconfig: kc })).kube())).toMatch(
      /^ANTCTL_KUBECONFIG: .*use-context/,
    );
  });
  it('--server replaces the kubeconfig host', async () => {
    const kc = kubeconfig('server', 'https://10.5.5.5:6443');
    expect(
      (await createConnections(controller, env({ kubeconfig: kc, server: 'https://10.9.9.9:443' })).kube())
        .target,
    ).toBe('https://10.9.9.9:443');
  });
  it('sends the kubeconfig token to the Kubernetes API', async () => {
    let auth: string | undefined;
    const srv = createServer((req, res) => {
      auth = req.headers.authorization;
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const kc = kubeconfig('tokencheck', `http://127.0.0.1:${(srv.address() as AddressInfo).port}`);
    const client = await createConnections(controller, env({ kubeconfig: kc })).kube();
    expect(
      await getJson(client, { path: '/x' }, { route: { kind: 'kube' }, target: client.target, subject: 'x' }),
    ).toEqual({ ok: true });
    expect(auth).toBe('Bearer tok-tokencheck');
    srv.close();
  });
});

describe('controller and agent endpoints by mode', () => {
  it('goes through the Kubernetes API (aggregated route) from outside the cluster', async () => {
    const kc = kubeconfig('agg', 'https://10.6.6.6:6443');
    const r = await createConnections(decideMode(undefined), env({ kubeconfig: kc })).controller();
    expect(r.route).toEqual({ kind: 'aggregated', apiService: 'v1beta2.controlplane.antrea.io' });
    expect(r.client.target).toBe('https://10.6.6.6:6443');
  });
  it('uses loopback 10349 in the controller Pod, with the loopback token when present', async () => {
    let header: string | undefined;
    const c = createConnections(decideMode('antrea-controller-1'), {
      timeoutMs: 0,
      fileExists: (p) => p === LOOPBACK_TOKEN_PATH,
      readFile: () => 'loop-token\n',
    });
    const r = await c.controller();
    expect(r.route).toEqual({ kind: 'controller' });
    expect(r.client.target).toBe('https://127.0.0.1:10349');
    // The header travels with the request; check it reaches a server.
    const srv = createServer((req, res) => {
      header = req.headers.authorization;
      res.end('1');
    });
    await new Promise<void>((rs) => srv.listen(0, '127.0.0.1', rs));
    const direct = await createConnections(decideMode('antrea-controller-1'), {
      timeoutMs: 0,
      server: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
      fileExists: (p) => p === LOOPBACK_TOKEN_PATH,
      readFile: () => 'loop-token\n',
    }).controllerDirect();
    await direct.request({ path: '/loglevel' });
    expect(header).toBe('Bearer loop-token');
    srv.close();
  });
  it('defaults the agent to https://127.0.0.1:10350 and accepts host:port (HTTPS) or a URL', async () => {
    const agent = decideMode('antrea-agent-1');
    expect((await createConnections(agent, env({})).agent()).target).toBe('https://127.0.0.1:10350');
    expect((await createConnections(agent, env({ agentAddress: '10.0.0.7:10350' })).agent()).target).toBe(
      'https://10.0.0.7:10350',
    );
    expect(
      (await createConnections(agent, env({ agentAddress: 'http://10.0.0.7:10350' })).agent()).target,
    ).toBe('http://10.0.0.7:10350');
  });
  it("sends the agent's loopback token: Antrea's path, or ANTCTL_AGENT_TOKEN_FILE's", async () => {
    const headers: (string | undefined)[] = [];
    const srv = createServer((req, res) => {
      headers.push(req.headers.authorization);
      res.end('{}');
    });
    await new Promise<void>((rs) => srv.listen(0, '127.0.0.1', rs));
    const agentAddress = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const files: Record<string, string> = {
      [LOOPBACK_TOKEN_PATH]: 'default-token\n',
      '/lab/n1/token': 'n1-token',
    };
    const agentEnv = (agentTokenFile?: string) =>
      env({ agentAddress, agentTokenFile, fileExists: (p) => p in files, readFile: (p) => files[p] ?? '' });
    const mode = decideMode('antrea-agent-1');
    await (await createConnections(mode, agentEnv()).agent()).request({ path: '/agentinfo' });
    await (await createConnections(mode, agentEnv('/lab/n1/token')).agent()).request({ path: '/agentinfo' });
    await (await createConnections(mode, agentEnv('/lab/missing')).agent()).request({ path: '/agentinfo' });
    srv.close();
    expect(headers).toEqual(['Bearer default-token', 'Bearer n1-token', undefined]);
  });
});
