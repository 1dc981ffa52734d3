// The antrea-cni binary against the agent-side CniServer (with a stub PodConfigurator): the whole
// Pod-event path except the interface plumbing, in real processes over the real socket.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CniError } from '@antrea-ts/cni';
import { type CniRequest, CniServer, type PodConfigurator } from '@antrea-ts/cni/server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = `${root}cmd/antrea-cni/antrea-cni`;
const CONF = '{"cniVersion":"1.0.0","name":"antrea","type":"antrea"}';

function runCni(
  env: Record<string, string>,
  stdin: string,
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(LAUNCHER, [], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(stdin);
  });
}

/**
 * Records the order of work per container. While `barrier` is set, a call waits (up to 5 s) until
 * calls for two different containers are in flight, so that parallelism is observed, not timed.
 */
class SlowConfigurator implements PodConfigurator {
  readonly log: string[] = [];
  barrier = false;
  maxKeysInFlight = 0;
  private readonly inFlight = new Map<string, number>();
  private async work(req: CniRequest) {
    this.log.push(`start ${req.command} ${req.containerKey}`);
    this.inFlight.set(req.containerKey, (this.inFlight.get(req.containerKey) ?? 0) + 1);
    this.maxKeysInFlight = Math.max(this.maxKeysInFlight, this.inFlight.size);
    for (let waited = 0; this.barrier && this.inFlight.size < 2 && waited < 5000; waited += 10) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 20));
    const n = this.inFlight.get(req.containerKey)! - 1;
    if (n === 0) this.inFlight.delete(req.containerKey);
    else this.inFlight.set(req.containerKey, n);
    this.log.push(`end ${req.command} ${req.containerKey}`);
  }
  async add(req: CniRequest) {
    await this.work(req);
    if (req.k8s.podName === 'no-ip') throw new CniError(101, 'IP range exhausted');
    return {
      cniVersion: req.cniVersion,
      interfaces: [{ name: 'eth0', sandbox: req.args.netns }],
      ips: [{ interface: 0, address: '10.10.0.7/24', gateway: '10.10.0.1' }],
    };
  }
  async check(req: CniRequest) {
    await this.work(req);
  }
  async del(req: CniRequest) {
    await this.work(req);
  }
}

let dir: string;
let socketPath: string;
let server: CniServer;
const configurator = new SlowConfigurator();

beforeAll(async () => {
  await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-cni'], { cwd: root }).catch(() => undefined);
  dir = await mkdtemp(join(tmpdir(), 'antrea-cni-e2e-'));
  socketPath = join(dir, 'antrea', 'cni.sock');
  server = new CniServer({ socketPath, configurator, logger: pino({ level: 'silent' }) });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

function env(command: string, container: string, pod = container): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: container,
    CNI_NETNS: `/var/run/netns/${container}`,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pod}`,
    CNI_PATH: '/opt/cni/bin',
    ANTREA_CNI_SOCKET: socketPath,
  };
}

describe('antrea-cni binary with the agent CNI server', () => {
  it('gets the result for ADD through a root-only socket', async () => {
    expect((await stat(socketPath)).mode & 0o777).toBe(0o600);
    const r = await runCni(env('ADD', 'sandbox-a'), CONF);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ cniVersion: '1.0.0', ips: [{ address: '10.10.0.7/24' }] });
  });

  it("reports the configurator's CNI error code", async () => {
    const r = await runCni(env('ADD', 'sandbox-b', 'no-ip'), CONF);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 101, msg: 'IP range exhausted' });
  });

  it('serializes concurrent plugin processes for one container, not across containers', async () => {
    configurator.log.length = 0;
    configurator.barrier = true;
    const runs = await Promise.all([
      runCni(env('ADD', 'sandbox-c'), CONF),
      runCni(env('DEL', 'sandbox-c'), CONF),
      runCni(env('ADD', 'sandbox-d'), CONF),
    ]);
    configurator.barrier = false;
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const c = configurator.log.filter((l) => l.endsWith('sandbox-c'));
    // Whichever came first, the two calls on sandbox-c never overlap.
    expect(c).toHaveLength(4);
    expect(c[0]!.replace('start', 'end')).toBe(c[1]);
    expect(c[2]!.replace('start', 'end')).toBe(c[3]);
    // sandbox-c and sandbox-d were worked on at the same time.
    expect(configurator.maxKeysInFlight).toBe(2);
  });
});
