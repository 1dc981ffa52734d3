// The antrea-cni binary as the container runtime runs it for kubelet: a child process with the CNI_*
// environment and the network configuration on stdin, talking to a (fake) agent on a unix socket.
import { execFile, spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FakeCniAgent } from '@antrea-ts/cni/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = `${root}cmd/antrea-cni/antrea-cni`;
const CONF = '{"cniVersion":"1.0.0","name":"antrea","type":"antrea","ipam":{"type":"host-local"}}';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the launcher with only the given environment (plus PATH to find node), like libcni's exec. */
function runCni(env: Record<string, string>, stdin: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(LAUNCHER, [], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function cniError(r: Run): { cniVersion: string; code: number; msg: string; details?: string } {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(1);
  return JSON.parse(r.stdout);
}

function podEnv(
  agent: { socketPath: string } | string,
  command = 'ADD',
  containerId = 'c0ffee01',
): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: '/var/run/netns/cni-test-pod',
    CNI_IFNAME: 'eth0',
    CNI_ARGS:
      'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0;K8S_POD_INFRA_CONTAINER_ID=c0ffee01',
    CNI_PATH: '/opt/cni/bin',
    ANTREA_CNI_SOCKET: typeof agent === 'string' ? agent : agent.socketPath,
  };
}

beforeAll(async () => {
  // The launcher runs compiled JavaScript: build it (a no-op when up to date). tsc -b still emits when
  // a referenced package has type errors (another package mid-change), so only a missing or stale
  // output fails the suite here; type errors are the build's and lint's to report.
  const built = await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-cni'], { cwd: root }).then(
    () => '',
    (err: { stdout?: string }) => err.stdout ?? String(err),
  );
  const [js, ts] = await Promise.all([
    stat(`${root}dist/cmd/antrea-cni/main.js`).catch(() => undefined),
    stat(`${root}cmd/antrea-cni/main.ts`),
  ]);
  if (!js || js.mtimeMs < ts.mtimeMs) throw new Error(`antrea-cni did not build:\n${built}`);
});

let agent: FakeCniAgent | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

describe('antrea-cni binary: success paths', () => {
  it('ADD prints the agent result JSON on stdout and exits 0', async () => {
    agent = await FakeCniAgent.start();
    const r = await runCni(podEnv(agent), CONF);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const result = JSON.parse(r.stdout);
    expect(result.cniVersion).toBe('1.0.0');
    expect(result.ips).toEqual([{ interface: 1, address: '10.10.1.5/24', gateway: '10.10.1.1' }]);
    const req = agent.calls[0]!.request.cniArgs!;
    expect(req).toMatchObject({
      containerId: 'c0ffee01',
      netns: '/var/run/netns/cni-test-pod',
      ifname: 'eth0',
      path: '/opt/cni/bin',
    });
    expect(req.args).toContain('K8S_POD_NAME=web-0');
    expect(new TextDecoder().decode(req.networkConfiguration)).toBe(CONF);
    // The default deadline (100 s) travels as grpc-timeout.
    expect(agent.calls[0]!.deadline).toBeGreaterThan(90_000);
  });

  it('CHECK and DEL forward prevResult untouched and print nothing on success', async () => {
    agent = await FakeCniAgent.start();
    const withPrev = JSON.stringify({ ...JSON.parse(CONF), prevResult: { cniVersion: '1.0.0', ips: [] } });
    for (const cmd of ['CHECK', 'DEL']) {
      const r = await runCni(podEnv(agent, cmd), withPrev);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
    expect(agent.calls.map((c) => c.method)).toEqual(['CmdCheck', 'CmdDel']);
    expect(new TextDecoder().decode(agent.calls[1]!.request.cniArgs!.networkConfiguration)).toBe(withPrev);
  });

  it('works the same over the grpc-js transport (ANTREA_CNI_TRANSPORT=grpc-js)', async () => {
    agent = await FakeCniAgent.start();
    const ok = await runCni({ ...podEnv(agent), ANTREA_CNI_TRANSPORT: 'grpc-js' }, CONF);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).ips).toHaveLength(1);
    agent.setDefault('CmdAdd', { error: { code: 101, message: 'no IP' } });
    expect(cniError(await runCni({ ...podEnv(agent), ANTREA_CNI_TRANSPORT: 'grpc-js' }, CONF)).code).toBe(
      101,
    );
  });

  it('forwards a large network configuration intact', async () => {
    agent = await FakeCniAgent.start();
    const big = JSON.stringify({ ...JSON.parse(CONF), padding: 'x'.repeat(256 * 1024) });
    expect((await runCni(podEnv(agent), big)).code).toBe(0);
    expect(new TextDecoder().decode(agent.calls[0]!.request.cniArgs!.networkConfiguration)).toBe(big);
  });

  it('VERSION answers without an agent', async () => {
    const r = await runCni(
      { CNI_COMMAND: 'VERSION', ANTREA_CNI_SOCKET: '/nonexistent.sock' },
      '{"cniVersion":"1.0.0"}',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      cniVersion: '1.0.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
    const empty = await runCni({ CNI_COMMAND: 'VERSION' }, '');
    expect(JSON.parse(empty.stdout).cniVersion).toBe('1.1.0');
  });

  it('without CNI_COMMAND prints what it is on stderr and exits 0', async () => {
    const r = await runCni({}, '');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^Antrea-TS CNI plugin .*\nCNI protocol versions supported: 0\.1\.0, .*1\.1\.0\n$/,
    );
  });

  it('STATUS exits 0 while the agent serves and 50 when it does not', async () => {
    agent = await FakeCniAgent.start();
    const conf = '{"cniVersion":"1.1.0","name":"antrea","type":"antrea"}';
    expect((await runCni({ CNI_COMMAND: 'STATUS', ANTREA_CNI_SOCKET: agent.socketPath }, conf)).code).toBe(0);
    expect(
      cniError(await runCni({ CNI_COMMAND: 'STATUS', ANTREA_CNI_SOCKET: '/nonexistent.sock' }, conf)).code,
    ).toBe(50);
  });

  it('serves parallel Pod events, each its own process', async () => {
    agent = await FakeCniAgent.start();
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => runCni(podEnv(agent!, 'ADD', `pod${i}`), CONF)),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(agent.calls.map((c) => c.request.cniArgs!.containerId).sort()).toEqual(
      ['pod0', 'pod1', 'pod2', 'pod3', 'pod4', 'pod5'].sort(),
    );
  });
});

describe('antrea-cni binary: errors the runtime sees', () => {
  it.each([
    ['UNKNOWN', 0],
    ['INCOMPATIBLE_CNI_VERSION', 1],
    ['UNSUPPORTED_FIELD', 2],
    ['UNKNOWN_CONTAINER', 3],
    ['INVALID_ENVIRONMENT_VARIABLES', 4],
    ['IO_FAILURE', 5],
    ['DECODING_FAILURE', 6],
    ['INVALID_NETWORK_CONFIG', 7],
    ['TRY_AGAIN_LATER', 11],
    ['IPAM_FAILURE', 101],
    ['CONFIG_INTERFACE_FAILURE', 102],
    ['CHECK_INTERFACE_FAILURE', 103],
  ])('agent error %s -> CNI code %i with the agent message', async (name, code) => {
    agent = await FakeCniAgent.start();
    agent.setDefault('CmdAdd', { error: { code, message: `agent: ${name}` } });
    expect(cniError(await runCni(podEnv(agent), CONF))).toEqual({
      cniVersion: '1.0.0',
      code,
      msg: `agent: ${name}`,
    });
  });

  it('gRPC UNIMPLEMENTED (agent of another API version) -> 202', async () => {
    agent = await FakeCniAgent.start({ methods: ['CmdAdd', 'CmdDel'] });
    const e = cniError(await runCni(podEnv(agent, 'CHECK'), CONF));
    expect(e.code).toBe(202);
    expect(e.msg).toContain('client is using version 1.0.0-beta.1');
    expect(e.details).toContain('code = Unimplemented');
  });

  it.each([
    [14, 11],
    [2, 201],
    [13, 201],
    [8, 201],
  ])('gRPC status %i -> CNI code %i', async (grpcStatus, code) => {
    agent = await FakeCniAgent.start();
    agent.setDefault('CmdAdd', { grpcStatus, details: 'scripted' });
    expect(cniError(await runCni(podEnv(agent), CONF)).code).toBe(code);
  });

  it('an agent slower than ANTREA_CNI_TIMEOUT_MS -> 11 (try again later), also for DEL', async () => {
    agent = await FakeCniAgent.start();
    agent.setDefault('CmdAdd', { hang: true }).setDefault('CmdDel', { hang: true });
    for (const cmd of ['ADD', 'DEL']) {
      const e = cniError(await runCni({ ...podEnv(agent, cmd), ANTREA_CNI_TIMEOUT_MS: '300' }, CONF));
      expect([e.code, e.msg]).toEqual([
        11,
        'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      ]);
    }
  });

  it('agent down: ADD and CHECK -> 11; DEL succeeds (best effort) unless told to fail', async () => {
    const sock = '/nonexistent/antrea/cni.sock';
    for (const cmd of ['ADD', 'CHECK']) {
      const e = cniError(await runCni(podEnv(sock, cmd), CONF));
      expect(e.code).toBe(11);
      expect(e.msg).toContain(`dial unix ${sock}`);
    }
    const del = await runCni(podEnv(sock, 'DEL'), CONF);
    expect([del.code, del.stdout]).toEqual([0, '']);
    expect(del.stderr).toContain('antrea-agent is not serving');
    const strict = await runCni({ ...podEnv(sock, 'DEL'), ANTREA_CNI_DEL_AGENT_DOWN: 'fail' }, CONF);
    expect(cniError(strict).code).toBe(11);
  });

  it('missing environment -> 4 naming the variables', async () => {
    const e = cniError(await runCni({ CNI_COMMAND: 'ADD', CNI_IFNAME: 'eth0' }, CONF));
    expect(e).toEqual({
      cniVersion: '1.1.0',
      code: 4,
      msg: 'required env variables [CNI_CONTAINERID,CNI_NETNS] missing',
    });
    expect(cniError(await runCni({ CNI_COMMAND: 'BOGUS' }, CONF)).msg).toBe('unknown CNI_COMMAND: BOGUS');
  });

  it('bad JSON on stdin -> 6, missing name -> 7, unknown CNI version -> 1', async () => {
    const env = podEnv('/nonexistent.sock');
    expect(cniError(await runCni(env, '{"cniVersion": "1.0.0",')).code).toBe(6);
    expect(cniError(await runCni(env, '{"cniVersion":"1.0.0","type":"antrea"}'))).toEqual({
      cniVersion: '1.0.0',
      code: 7,
      msg: 'missing network name',
    });
    const v = cniError(await runCni(env, '{"cniVersion":"2.0.0","name":"antrea"}'));
    expect([v.code, v.msg]).toEqual([1, 'incompatible CNI versions']);
    expect(v.details).toContain('config is "2.0.0"');
  });

  it('the plugin own netns as CNI_NETNS -> 8', async () => {
    const e = cniError(
      await runCni({ ...podEnv('/nonexistent.sock'), CNI_NETNS: '/proc/self/ns/net' }, CONF),
    );
    expect(e.code).toBe(8);
  });

  it.each([
    ['ANTREA_CNI_TIMEOUT_MS', 'soon'],
    ['ANTREA_CNI_TIMEOUT_MS', '-5'],
    ['ANTREA_CNI_DEL_AGENT_DOWN', 'maybe'],
    ['ANTREA_CNI_TRANSPORT', 'carrier-pigeon'],
  ])('an invalid plugin option %s=%s -> 4', async (name, value) => {
    const e = cniError(await runCni({ ...podEnv('/nonexistent.sock'), [name]: value }, CONF));
    expect([e.code, e.msg]).toEqual([4, `invalid ${name}`]);
  });
});
