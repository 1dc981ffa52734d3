import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cachedBinDir,
  createNetns,
  createUnderlay,
  type KubeCluster,
  makeTempDir,
  type Netns,
  run,
  startKube,
  type TempDir,
  type Underlay,
  uniqueTag,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCniPlugin,
  CNI_BIN_DIR,
  cniEnv,
  createLabNode,
  deleteLabNode,
  LAUNCHER,
  type LabNode,
  NET_CONF,
  ping,
  runCni,
  startAgent,
} from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

const CONFLIST = {
  cniVersion: '1.0.0',
  name: 'antrea',
  plugins: [
    { type: 'antrea', ipam: { type: 'host-local' } },
    { type: 'portmap', capabilities: { portMappings: true } },
    { type: 'bandwidth', capabilities: { bandwidth: true } },
  ],
};

describe('CNI conformance: cnitool and direct invocation against the real agent', () => {
  let kube: KubeCluster;
  let underlay: Underlay;
  let n: LabNode;
  let tools: TempDir;
  const netnses: Netns[] = [];

  /** What must be back to baseline after every DEL or failed ADD. */
  async function state() {
    const ports = (await n.node.ovs.vsctl(['list-ports', 'br-int'])).split('\n').filter(Boolean).sort();
    const links = (await n.node.netns.exec(['ip', '-o', 'link', 'show', 'type', 'veth']))
      .split('\n')
      .filter(Boolean).length;
    let ipam: string[] = [];
    try {
      ipam = readdirSync(join(n.config.hostLocalDataDir!, 'antrea')).filter((f) => /^\d/.test(f));
    } catch {
      // no allocation ever made
    }
    return { ports, links, ipam, store: n.agent!.store.size };
  }

  async function newNetns(name: string): Promise<Netns> {
    const ns = await createNetns(`ats-${uniqueTag()}-${name}`);
    netnses.push(ns);
    return ns;
  }

  function cnitool(args: string[], env: Record<string, string> = {}) {
    return run(['ip', 'netns', 'exec', n.node.netns.name, join(cachedBinDir(), 'cnitool'), ...args], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        NETCONFPATH: join(tools.path, 'net.d'),
        CNI_PATH: join(tools.path, 'bin'),
        ANTREA_CNI_SOCKET: n.cniSocket,
        ...env,
      },
    });
  }

  beforeAll(async () => {
    await buildCniPlugin();
    kube = await startKube({ logger });
    underlay = await createUnderlay();
    // A CNI bin dir as the agent's install step would lay it out: antrea next to the reference plugins.
    tools = makeTempDir('cni');
    mkdirSync(join(tools.path, 'bin'));
    symlinkSync(LAUNCHER, join(tools.path, 'bin', 'antrea'));
    for (const p of ['host-local', 'portmap', 'bandwidth', 'loopback']) {
      symlinkSync(join(CNI_BIN_DIR, p), join(tools.path, 'bin', p));
    }
    // The agent installs 10-antrea.conflist (antrea, portmap, bandwidth) once it serves CNI.
    n = await createLabNode({
      kube,
      underlay,
      name: 'c1',
      podCidr: '10.30.1.0/24',
      logger,
      config: { cniConfDir: join(tools.path, 'net.d') },
    });
    await startAgent(n, kube, logger);
    const installed = JSON.parse(
      readFileSync(join(tools.path, 'net.d', '10-antrea.conflist'), 'utf8'),
    ) as typeof CONFLIST;
    expect(installed.plugins.map((p) => p.type)).toEqual(['antrea', 'portmap', 'bandwidth']);
    writeFileSync(
      join(tools.path, 'net.d', '20-antrea-solo.conflist'),
      JSON.stringify({ ...CONFLIST, name: 'antrea-solo', plugins: CONFLIST.plugins.slice(0, 1) }),
    );
  });

  afterAll(async () => {
    for (const ns of netnses) await ns.delete();
    if (n) await deleteLabNode(n);
    tools?.remove();
    await underlay?.delete();
    await kube?.stop();
  });

  it('cnitool add/check/del through the chained conflist (antrea, portmap, bandwidth)', async () => {
    const before = await state();
    const pod = await newNetns('tool');
    const path = `/var/run/netns/${pod.name}`;
    // CHECK is tested on a conflist of antrea alone (next test): the reference portmap and bandwidth
    // plugins fail their own CHECK here (ip6tables chain they never created; nil bandwidth config).
    const capArgs = {
      CAP_ARGS: JSON.stringify({
        portMappings: [{ hostPort: 18080, containerPort: 80, protocol: 'tcp' }],
        bandwidth: {
          ingressRate: 100_000_000,
          ingressBurst: 1_000_000,
          egressRate: 100_000_000,
          egressBurst: 1_000_000,
        },
      }),
    };
    const result = JSON.parse(await cnitool(['add', 'antrea', path], capArgs)) as {
      ips: Array<{ address: string; gateway: string }>;
      interfaces: Array<{ name: string; sandbox?: string }>;
    };
    expect(result.ips[0]!.address).toMatch(/^10\.30\.1\.\d+\/24$/);
    expect(result.ips[0]!.gateway).toBe('10.30.1.1');
    expect(result.interfaces.some((i) => i.sandbox === path)).toBe(true);
    expect(await ping(pod, '10.30.1.1')).toBe(true);
    // MTU: the transport's 1500 minus Geneve's 50.
    expect(await pod.exec(['cat', '/sys/class/net/eth0/mtu'])).toBe('1450\n');
    // Pod identity on the OVS port.
    const ids = await n.node.ovs.vsctl([
      '--columns=external_ids',
      'list',
      'interface',
      result.interfaces[0]!.name,
    ]);
    expect(ids).toContain('pod-name=');
    expect(ids).toContain(`ip-address="${result.ips[0]!.address.split('/')[0]}"`);
    expect(ids).toContain('attached-mac=');
    expect(ids).toContain('antrea-type=container');
    // portmap ran after us, in the Node's namespace.
    expect(await n.node.netns.exec(['iptables-save', '-t', 'nat'])).toContain('18080');
    // bandwidth shaped the Pod's host-side veth.
    expect(await n.node.netns.exec(['tc', 'qdisc', 'show', 'dev', result.interfaces[0]!.name])).toContain(
      'tbf',
    );
    await cnitool(['del', 'antrea', path], capArgs);
    expect(await state()).toEqual(before);
    expect(await n.node.netns.exec(['iptables-save', '-t', 'nat'])).not.toContain('18080');
    // DEL is idempotent.
    await cnitool(['del', 'antrea', path], capArgs);
  });

  it('cnitool add/check/del with antrea alone', async () => {
    const before = await state();
    const pod = await newNetns('solo');
    const path = `/var/run/netns/${pod.name}`;
    await cnitool(['add', 'antrea-solo', path]);
    await cnitool(['check', 'antrea-solo', path]);
    await pod.exec(['ip', 'link', 'set', 'eth0', 'address', '02:00:00:00:00:99']);
    await expect(cnitool(['check', 'antrea-solo', path])).rejects.toThrow(/MAC/);
    await cnitool(['del', 'antrea-solo', path]);
    expect(await state()).toEqual(before);
  });

  it('answers bad input with the right CNI error codes', async () => {
    const pod = await newNetns('bad');
    const path = `/var/run/netns/${pod.name}`;
    const env = cniEnv(n, 'ADD', 'cbad1', path, 'bad');
    const code = (r: { stdout: string }) => (JSON.parse(r.stdout) as { code: number }).code;
    const badVersion = await runCni(
      env,
      JSON.stringify({ cniVersion: '0.2.0', name: 'antrea', type: 'antrea' }),
    );
    expect(badVersion.code).not.toBe(0);
    expect(code(badVersion)).toBe(1);
    const badJson = await runCni(env, '{"cniVersion":');
    expect(code(badJson)).toBe(6);
    const { CNI_CONTAINERID: _, ...noContainer } = env;
    expect(code(await runCni(noContainer, NET_CONF))).toBe(4);
    const badIpam = await runCni(
      env,
      JSON.stringify({ cniVersion: '1.0.0', name: 'antrea', type: 'antrea', ipam: { type: 'dhcp' } }),
    );
    expect(code(badIpam)).toBe(2);
    const agentDown = await runCni({ ...env, ANTREA_CNI_SOCKET: join(n.dir.path, 'nobody.sock') }, NET_CONF);
    expect(agentDown.code).not.toBe(0);
  });

  it('rolls a failed ADD back completely (no port, no veth, no IP held)', async () => {
    const before = await state();
    const r = await runCni(cniEnv(n, 'ADD', 'cgone1', '/var/run/netns/ats-does-not-exist', 'gone'), NET_CONF);
    expect(r.code).not.toBe(0);
    expect((JSON.parse(r.stdout) as { code: number }).code).toBe(102);
    expect(await state()).toEqual(before);
  });

  it('CHECK fails for an unknown container and for a tampered interface', async () => {
    const pod = await newNetns('chk');
    const path = `/var/run/netns/${pod.name}`;
    const conf = JSON.stringify({ ...JSON.parse(NET_CONF), prevResult: { cniVersion: '1.0.0' } });
    const unknown = await runCni(cniEnv(n, 'CHECK', 'cnone', path, 'chk'), conf);
    expect((JSON.parse(unknown.stdout) as { code: number }).code).toBe(103);
    expect((await runCni(cniEnv(n, 'ADD', 'cchk1', path, 'chk'), NET_CONF)).code).toBe(0);
    expect((await runCni(cniEnv(n, 'CHECK', 'cchk1', path, 'chk'), conf)).code).toBe(0);
    await pod.exec(['ip', 'addr', 'flush', 'dev', 'eth0']);
    const tampered = await runCni(cniEnv(n, 'CHECK', 'cchk1', path, 'chk'), conf);
    expect((JSON.parse(tampered.stdout) as { code: number }).code).toBe(103);
    expect((await runCni(cniEnv(n, 'DEL', 'cchk1', path, 'chk'), NET_CONF)).code).toBe(0);
  });

  it('handles concurrent ADDs for different containers, and ADD/DEL races for one', async () => {
    const before = await state();
    const pods = await Promise.all(Array.from({ length: 8 }, (_, i) => newNetns(`par${i}`)));
    const adds = await Promise.all(
      pods.map((p, i) =>
        runCni(cniEnv(n, 'ADD', `cpar${i}`, `/var/run/netns/${p.name}`, `par${i}`), NET_CONF),
      ),
    );
    expect(adds.every((r) => r.code === 0)).toBe(true);
    const ips = adds.map(
      (r) => (JSON.parse(r.stdout) as { ips: Array<{ address: string }> }).ips[0]!.address,
    );
    expect(new Set(ips).size).toBe(8);
    // A DEL racing a repeated ADD of the same container: serialized, so the end state is consistent.
    const p0 = `/var/run/netns/${pods[0]!.name}`;
    await Promise.all([
      runCni(cniEnv(n, 'ADD', 'cpar0', p0, 'par0'), NET_CONF),
      runCni(cniEnv(n, 'DEL', 'cpar0', p0, 'par0'), NET_CONF),
    ]);
    await Promise.all(
      pods.map((p, i) =>
        runCni(cniEnv(n, 'DEL', `cpar${i}`, `/var/run/netns/${p.name}`, `par${i}`), NET_CONF),
      ),
    );
    expect(await state()).toEqual(before);
  });
});
