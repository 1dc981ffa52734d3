import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentClient } from '../client/agent-client.js';
import type { CniCmdArgs } from '../codec/cni-messages.js';
import { CniError } from '../errors.js';
import { H2UnaryTransport } from '../transport/h2-unary-transport.js';
import { CniServer } from './cni-server.js';
import type { CniRequest, PodConfigurator } from './pod-configurator.js';

const enc = new TextEncoder();
const logger = pino({ level: 'silent' });

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function args(
  containerId: string,
  conf: object | string = { cniVersion: '1.0.0', name: 'antrea' },
): CniCmdArgs {
  return {
    containerId,
    netns: `/var/run/netns/${containerId}`,
    ifname: 'eth0',
    args: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${containerId}`,
    path: '/opt/cni/bin',
    networkConfiguration: enc.encode(typeof conf === 'string' ? conf : JSON.stringify(conf)),
  };
}

/** A configurator that records calls and can hold each one until released. */
class RecordingConfigurator implements PodConfigurator {
  readonly events: string[] = [];
  gate: Promise<void> | undefined;
  addError: Error | undefined;
  checkError: Error | undefined;
  delError: Error | undefined;
  readonly seen: CniRequest[] = [];

  private async step(req: CniRequest, err: Error | undefined) {
    this.seen.push(req);
    this.events.push(`start ${req.command} ${req.args.containerId}`);
    if (this.gate) await this.gate;
    this.events.push(`end ${req.command} ${req.args.containerId}`);
    if (err) throw err;
  }
  async add(req: CniRequest) {
    await this.step(req, this.addError);
    return { cniVersion: req.cniVersion, ips: [{ address: '10.0.0.2/24' }] };
  }
  async check(req: CniRequest) {
    await this.step(req, this.checkError);
  }
  async del(req: CniRequest) {
    await this.step(req, this.delError);
  }
}

let dir: string;
let server: CniServer | undefined;
let cfg: RecordingConfigurator;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'antrea-cni-server-'));
  cfg = new RecordingConfigurator();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function started(opts: { supportedVersions?: string[] } = {}) {
  const socketPath = join(dir, 'run', 'cni.sock');
  server = new CniServer({ socketPath, configurator: cfg, logger, ...opts });
  await server.start();
  return { socketPath, client: new AgentClient(new H2UnaryTransport(socketPath), 5000) };
}

async function cniErr(p: Promise<unknown>): Promise<CniError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(CniError);
  return e as CniError;
}

describe('CniServer over its socket (with the plugin client)', () => {
  it('listens on a 0600 socket in a created directory and removes it on stop', async () => {
    const { socketPath } = await started();
    const st = await stat(socketPath);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    await server!.stop();
    await server!.stop(); // idempotent
    await expect(stat(socketPath)).rejects.toThrow(/ENOENT/);
  });

  it('replaces a stale socket file left by a previous agent', async () => {
    const socketPath = join(dir, 'cni.sock');
    await writeFile(socketPath, 'stale');
    server = new CniServer({ socketPath, configurator: cfg, logger });
    await server.start();
    expect((await stat(socketPath)).isSocket()).toBe(true);
  });

  it('returns the configurator result for ADD with the parsed request', async () => {
    const { client } = await started();
    const out = await client.command('ADD', args('pod1'));
    expect(JSON.parse(new TextDecoder().decode(out))).toEqual({
      cniVersion: '1.0.0',
      ips: [{ address: '10.0.0.2/24' }],
    });
    expect(cfg.seen[0]).toMatchObject({
      command: 'ADD',
      cniVersion: '1.0.0',
      containerKey: 'pod1',
      netConf: { name: 'antrea' },
      k8s: { podName: 'pod1', podNamespace: 'default' },
    });
  });

  it('answers validation failures as Antrea does', async () => {
    const { client } = await started({ supportedVersions: ['0.4.0', '1.0.0'] });
    const bad = await cniErr(client.command('ADD', args('p', '{not json')));
    expect([bad.cniCode, bad.msg]).toEqual([6, 'Failed to decode network config']);
    const badArgs = await cniErr(client.command('ADD', { ...args('p'), args: 'NOPE' }));
    expect(badArgs.cniCode).toBe(6);
    const ver = await cniErr(client.command('DEL', args('p', { cniVersion: '0.3.1', name: 'antrea' })));
    expect([ver.cniCode, ver.msg]).toEqual([
      1,
      'Unsupported CNI version [0.3.1], supported versions [0.4.0 1.0.0]',
    ]);
    expect(cfg.seen).toEqual([]);
  });

  it('maps configurator failures: CniError keeps its code, others by command; failed ADD is rolled back', async () => {
    const { client } = await started();
    cfg.addError = new CniError(101, 'range exhausted');
    expect(await cniErr(client.command('ADD', args('p1')))).toMatchObject({
      cniCode: 101,
      msg: 'range exhausted',
    });
    expect(cfg.events).toEqual(['start ADD p1', 'end ADD p1', 'start DEL p1', 'end DEL p1']);
    cfg.addError = new Error('veth exists');
    expect(await cniErr(client.command('ADD', args('p2')))).toMatchObject({
      cniCode: 102,
      msg: 'veth exists',
    });
    cfg.checkError = new Error('port missing');
    expect((await cniErr(client.command('CHECK', args('p3')))).cniCode).toBe(103);
    cfg.delError = new Error('ovsdb down');
    expect((await cniErr(client.command('DEL', args('p4')))).cniCode).toBe(102);
  });

  it('serializes requests for one container and runs different containers in parallel', async () => {
    const { client } = await started();
    const gate = deferred();
    cfg.gate = gate.promise;
    const calls = [
      client.command('ADD', args('pod-a')),
      client.command('DEL', args('pod-a')),
      client.command('ADD', args('pod-b')),
    ];
    // Wait until both containers' first requests are inside the configurator.
    for (let i = 0; i < 100 && cfg.events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(cfg.events.sort()).toEqual(['start ADD pod-a', 'start ADD pod-b']);
    gate.resolve();
    await Promise.all(calls);
    const a = cfg.events.filter((e) => e.endsWith('pod-a'));
    expect(a).toEqual(['start ADD pod-a', 'end ADD pod-a', 'start DEL pod-a', 'end DEL pod-a']);
  });

  it('serializes on the Pod infra container when the runtime names it', async () => {
    await started();
    const a = { ...args('c1'), args: 'IgnoreUnknown=1;K8S_POD_INFRA_CONTAINER_ID=sandbox1' };
    const resp = await server!.handle('CmdCheck', { cniArgs: a }, new AbortController().signal);
    expect(resp.error).toBeUndefined();
    expect(cfg.seen[0]!.containerKey).toBe('sandbox1');
  });

  it('aborts the request signal when the plugin gives up', async () => {
    const { socketPath } = await started();
    const gate = deferred();
    cfg.gate = gate.promise;
    const impatient = new AgentClient(new H2UnaryTransport(socketPath), 100);
    expect((await cniErr(impatient.command('ADD', args('slow')))).cniCode).toBe(11);
    for (let i = 0; i < 100 && !cfg.seen[0]?.signal.aborted; i++) await new Promise((r) => setTimeout(r, 10));
    expect(cfg.seen[0]!.signal.aborted).toBe(true);
    gate.resolve();
  });
});
