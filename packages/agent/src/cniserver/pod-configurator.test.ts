import type { FlowMod } from '@antrea-ts/openflow';
import { FakeBridgeClient } from '@antrea-ts/ovsdb/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CommandRunner, RunOptions } from '../net/command-runner.js';
import { CookieAllocator } from '../openflow/cookie.js';
import { FlowCache } from '../openflow/flow-cache.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import type { Ipam } from './host-local-ipam.js';
import { InterfaceStore } from './interface-store.js';
import { PodConfigurator } from './pod-configurator.js';

const logger = pino({ level: 'silent' });

class RecordingRunner implements CommandRunner {
  calls: string[][] = [];
  inputs: string[] = [];
  failOn: string | undefined;
  /** How long the failing command takes before it fails. */
  delayMs = 0;
  async run(argv: readonly string[], o?: RunOptions): Promise<string> {
    this.calls.push([...argv]);
    if (o?.input !== undefined) this.inputs.push(o.input);
    if (this.failOn && argv.includes(this.failOn)) {
      await new Promise((r) => setTimeout(r, this.delayMs));
      throw new Error(`${this.failOn} failed`);
    }
    return '';
  }
}

class FakeIpam implements Ipam {
  held = new Set<string>();
  next = 2;
  failAdd = false;
  async add(id: string) {
    if (this.failAdd) throw new Error('no addresses left');
    this.held.add(id);
    return { address: `10.10.1.${this.next++}/24`, gateway: '10.10.1.1' };
  }
  async del(id: string) {
    this.held.delete(id);
  }
  async check() {}
}

class NullSwitch implements FlowSwitch {
  connected = true;
  mods: FlowMod[] = [];
  failBundles = false;
  async bundle(m: readonly FlowMod[]) {
    if (this.failBundles) throw new Error('bundle refused');
    this.mods.push(...m);
  }
  async dumpFlows() {
    return [];
  }
  onConnected() {
    return () => undefined;
  }
  async waitConnected() {}
}

async function setup(
  options: { disableTxChecksumOffload?: boolean; deletePort?: (name: string) => Promise<unknown> } = {},
) {
  const bridges = new FakeBridgeClient();
  await bridges.ensureBridge('br-int');
  const runner = new RecordingRunner();
  const ipam = new FakeIpam();
  const sw = new NullSwitch();
  const store = new InterfaceStore();
  const pods = new PodConfigurator({
    bridgeName: 'br-int',
    mtu: 1450,
    gatewayMac: '02:00:00:00:00:01',
    disableTxChecksumOffload: options.disableTxChecksumOffload ?? true,
    runner,
    bridges,
    flows: new FlowCache(sw, logger),
    ctx: { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) },
    ipam,
    store,
    logger,
    randomBytes: (n) => Buffer.alloc(n, 0x11),
    netnsExists: async (path) => path !== '/var/run/netns/gone',
    ...(options.deletePort ? { deletePort: options.deletePort } : {}),
  });
  return { bridges, runner, ipam, sw, store, pods };
}

const req = {
  containerId: 'c1',
  netns: '/var/run/netns/p1',
  ifName: 'eth0',
  podName: 'web',
  podNamespace: 'default',
};

describe('PodConfigurator', () => {
  it('wires a Pod: IPAM, interface script, OVS port with identity, six Pod flows (the sixth: its hairpin SNAT mark)', async () => {
    const { bridges, runner, sw, store, pods } = await setup();
    const pod = await pods.add(req);
    expect(pod).toMatchObject({
      ip: '10.10.1.2',
      ipCidr: '10.10.1.2/24',
      mac: '12:11:11:11:11:11',
      ofport: 1,
    });
    // The veth pair comes from the shared ip batch with the Pod end made in the Pod's namespace;
    // there, one `ip -n` sets addresses and routes, and ethtool turns TX checksum offload off.
    expect(runner.inputs[0]).toBe(
      `link add ${pod.hostIfName} up mtu 1450 address 12:11:11:11:11:11 type veth peer name eth0 mtu 1450 address 12:11:11:11:11:11 netns /var/run/netns/p1\n`,
    );
    expect(runner.calls.map((c) => c.join(' '))).toEqual(
      expect.arrayContaining([
        'ip -force -batch -',
        'ip -n p1 -batch -',
        'nsenter --net=/var/run/netns/p1 -- ethtool -K eth0 tx off',
      ]),
    );
    expect(runner.inputs[1]).toBe(
      'link set lo up\nlink set eth0 up\naddr add 10.10.1.2/24 dev eth0\nroute replace default via 10.10.1.1 dev eth0\n',
    );
    // The Node's kernel must leave the host end to OVS (no ARP answers, no routing): no duplicates.
    expect(runner.calls).toContainEqual([
      'sysctl',
      '-q',
      '-w',
      `net/ipv4/conf/${pod.hostIfName}/arp_ignore=1`,
      `net/ipv4/conf/${pod.hostIfName}/forwarding=0`,
    ]);
    const iface = await bridges.getInterface(pod.hostIfName);
    expect(iface?.externalIds).toMatchObject({
      'antrea-type': 'container',
      'container-id': 'c1',
      'pod-name': 'web',
      'pod-namespace': 'default',
      'ip-address': '10.10.1.2',
      'attached-mac': '12:11:11:11:11:11',
    });
    expect(sw.mods.filter((m) => m.command === 'ADD')).toHaveLength(6);
    expect(store.get('c1')).toBeDefined();
    // A repeated ADD returns the same interface without doing anything.
    const calls = runner.calls.length;
    expect(await pods.add(req)).toBe(pod);
    expect(runner.calls.length).toBe(calls);
  });

  it('leaves TX checksum offload alone on datapaths that finish checksums', async () => {
    const { runner, pods } = await setup({ disableTxChecksumOffload: false });
    await pods.add(req);
    expect(runner.calls.some((c) => c.includes('ethtool'))).toBe(false);
    expect(runner.calls.map((c) => c.join(' '))).toContain('ip -n p1 -batch -');
  });

  it('rolls back IPAM when the interface cannot be made', async () => {
    const { bridges, runner, ipam, store, pods } = await setup();
    runner.failOn = 'ethtool';
    await expect(pods.add(req)).rejects.toMatchObject({ code: 'AGENT_INTERFACE_FAILED' });
    expect(ipam.held.size).toBe(0);
    expect(store.size).toBe(0);
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual(['br-int']);
    expect(runner.inputs.at(-1)).toMatch(/^link set dev \S+ group \d+\nlink del group \d+\n$/);
  });

  it('rolls back the OVS port and flows when the Pod side fails after them', async () => {
    const { bridges, runner, ipam, sw, store, pods } = await setup();
    // The Pod side (`ip -n <netns>`) runs alongside the OVS port and flows; let it fail late.
    runner.failOn = '-n';
    runner.delayMs = 20;
    await expect(pods.add(req)).rejects.toMatchObject({ code: 'AGENT_INTERFACE_FAILED' });
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual(['br-int']);
    const added = sw.mods.filter((m) => m.command === 'ADD').length;
    expect(added).toBe(6);
    expect(sw.mods.filter((m) => m.command === 'DELETE_STRICT')).toHaveLength(added);
    expect(ipam.held.size).toBe(0);
    expect(store.size).toBe(0);
  });

  it('removes the veth it made when IPAM fails alongside it', async () => {
    const { bridges, runner, ipam, sw, store, pods } = await setup();
    ipam.failAdd = true;
    await expect(pods.add(req)).rejects.toThrow('no addresses left');
    expect(runner.inputs[0]).toMatch(/^link add /);
    expect(runner.inputs.at(-1)).toMatch(/^link set dev \S+ group \d+\nlink del group \d+\n$/);
    expect(runner.calls.map((c) => c.join(' '))).not.toContain('ip -n p1 -batch -');
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual(['br-int']);
    expect(sw.mods).toEqual([]);
    expect(store.size).toBe(0);
  });

  it('rolls back everything when the OVS side fails at any step while the Pod side succeeds', async () => {
    for (const step of ['addPort', 'waitForOfport', 'flows'] as const) {
      const { bridges, runner, ipam, sw, store, pods } = await setup();
      if (step === 'flows') sw.failBundles = true;
      else if (step === 'addPort') bridges.addPort = () => Promise.reject(new Error('addPort failed'));
      else bridges.waitForOfport = () => Promise.reject(new Error('waitForOfport failed'));
      await expect(pods.add(req), step).rejects.toMatchObject({ code: 'AGENT_INTERFACE_FAILED' });
      expect(
        runner.calls.map((c) => c.join(' ')),
        step,
      ).toContain('ip -n p1 -batch -');
      expect(
        (await bridges.listPorts('br-int')).map((p) => p.name),
        step,
      ).toEqual(['br-int']);
      expect(sw.mods, step).toEqual([]);
      expect(runner.inputs.at(-1), step).toMatch(/^link set dev \S+ group \d+\nlink del group \d+\n$/);
      expect(ipam.held.size, step).toBe(0);
      expect(store.size, step).toBe(0);
    }
  });

  it('waits for the OVS side before rolling back when the Pod side fails first', async () => {
    const { bridges, runner, ipam, sw, store, pods } = await setup();
    // The Pod side fails at once; the OVS side is still waiting for the ofport and then adds flows.
    runner.failOn = '-n';
    const waitForOfport = bridges.waitForOfport.bind(bridges);
    bridges.waitForOfport = async (name) => {
      await new Promise((r) => setTimeout(r, 30));
      return waitForOfport(name);
    };
    await expect(pods.add(req)).rejects.toMatchObject({ code: 'AGENT_INTERFACE_FAILED' });
    expect(sw.mods.filter((m) => m.command === 'ADD')).toHaveLength(6);
    // Every flow added after the failure is deleted again, after it was added.
    expect(sw.mods.map((m) => m.command)).toEqual([
      ...Array(6).fill('ADD'),
      ...Array(6).fill('DELETE_STRICT'),
    ]);
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual(['br-int']);
    expect(ipam.held.size).toBe(0);
    expect(store.size).toBe(0);
  });

  it('removes the port of a failed ADD the way DEL does (the injected deletePort, e.g. a PortBatcher)', async () => {
    const deleted: string[] = [];
    const { bridges, runner, pods } = await setup({
      deletePort: async (name) => {
        deleted.push(name);
        await bridges.deletePort('br-int', name);
      },
    });
    runner.failOn = '-n';
    runner.delayMs = 20;
    await expect(pods.add(req)).rejects.toMatchObject({ code: 'AGENT_INTERFACE_FAILED' });
    expect(deleted).toHaveLength(1);
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual(['br-int']);
    runner.failOn = undefined;
    const pod = await pods.add(req);
    await pods.del(req);
    expect(deleted).toEqual([pod.hostIfName, pod.hostIfName]);
  });

  it('fails a Pod whose netns is gone or unsafe for an ip batch line, before touching anything', async () => {
    const { runner, ipam, pods } = await setup();
    for (const netns of ['/var/run/netns/gone', '/var/run/netns/a b', 'relative']) {
      await expect(pods.add({ ...req, netns })).rejects.toMatchObject({ code: 'AGENT_INTERFACE_FAILED' });
    }
    expect(ipam.held.size).toBe(0);
    expect(runner.inputs.filter((i) => i.startsWith('link add'))).toEqual([]);
  });

  it('rejects interface names that are not Linux names', async () => {
    const { pods } = await setup();
    await expect(pods.add({ ...req, ifName: 'eth0\nlink del x' })).rejects.toMatchObject({
      code: 'AGENT_INTERFACE_FAILED',
    });
  });

  it('DEL removes flows, port, veth and IP, and is idempotent', async () => {
    const { bridges, ipam, sw, store, pods } = await setup();
    const pod = await pods.add(req);
    await pods.del(req);
    expect(store.size).toBe(0);
    expect(ipam.held.size).toBe(0);
    expect(await bridges.getInterface(pod.hostIfName)).toBeUndefined();
    expect(sw.mods.filter((m) => m.command === 'DELETE_STRICT')).toHaveLength(6);
    await pods.del(req);
    await pods.del({ ...req, containerId: 'never-seen' });
  });
});
