import { decodeControlplaneObject, type GroupMember, type NetworkPolicy } from '@antrea-ts/apis';
import { type FlowMod, type FlowStats, formatFlow, type PacketIn2 } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { PodInterface } from '../cniserver/interface-store.js';
import { CookieAllocator, CookieCategory } from '../openflow/cookie.js';
import { FlowCache } from '../openflow/flow-cache.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { ServiceGroupIndex } from '../proxy/service-group-index.js';
import type { ControllerConnection } from './controller-connection.js';
import { DNS_TYPE, encodeDnsMessage } from './fqdn/dns-message.js';
import { NetworkPolicyController, type NetworkPolicyControllerOptions } from './network-policy-controller.js';

const logger = pino({ level: 'silent' });

class FakeSwitch implements FlowSwitch {
  connected = true;
  /** Refuse bundles (the switch is gone). */
  failing = false;
  bundles: FlowMod[][] = [];
  stats: FlowStats[] = [];
  async bundle(mods: readonly FlowMod[]): Promise<void> {
    if (this.failing) throw new Error('switch gone');
    this.bundles.push([...mods]);
  }
  async dumpFlows(): Promise<FlowStats[]> {
    return this.stats;
  }
  onConnected(): () => void {
    return () => {};
  }
  async waitConnected(): Promise<void> {}
}

class FakeConnection implements ControllerConnection {
  posts: Array<{ path: string; kind: string; object: unknown }> = [];
  session(): never {
    throw new Error('no session in unit tests');
  }
  async token(): Promise<string> {
    return 't';
  }
  async post(path: string, body: Uint8Array): Promise<number> {
    const { kind, object } = decodeControlplaneObject(body);
    this.posts.push({ path, kind, object });
    return 201;
  }
  close(): void {}
}

const v4 = (s: string) => Uint8Array.from(s.split('.').map(Number));
const pods: PodInterface[] = [
  {
    containerId: 'c1',
    podName: 'web',
    podNamespace: 'ns',
    hostIfName: 'web-x',
    ifName: 'eth0',
    netns: '/n',
    ipCidr: '10.10.0.3/24',
    ip: '10.10.0.3',
    mac: '0a:00:00:00:00:03',
    ofport: 3,
  },
];
const policy = (generation: number): NetworkPolicy => ({
  metadata: { name: 'uid-1', generation },
  rules: [
    {
      direction: 'In',
      from: { addressGroups: ['ag'] },
      services: [{ protocol: 'TCP', port: 80 }],
      priority: -1,
      action: 'Allow',
      enableLogging: false,
    },
  ],
  appliedToGroups: ['atg'],
  sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'np', uid: 'uid-1' },
});
const member = (name: string, ip?: string): GroupMember => ({
  pod: { namespace: 'ns', name },
  ...(ip ? { ips: [v4(ip)] } : {}),
});

function setup(serviceGroups?: ServiceGroupIndex, fqdn?: NetworkPolicyControllerOptions['fqdn']) {
  const sw = new FakeSwitch();
  const conn = new FakeConnection();
  const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
  const c = new NetworkPolicyController({
    node: 'n1',
    connection: conn,
    flows: new FlowCache(sw, logger),
    ctx,
    sw,
    pods: () => pods,
    logger,
    statsIntervalMs: 0,
    ...(serviceGroups ? { serviceGroups } : {}),
    ...(fqdn ? { fqdn } : {}),
  });
  c.start();
  return { sw, conn, c, ctx };
}

async function initial(c: NetworkPolicyController, gen = 1) {
  c.replace('networkpolicies', [policy(gen)]);
  c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
  c.replace('addressgroups', [{ metadata: { name: 'ag' }, groupMembers: [member('client', '10.10.1.8')] }]);
  await c.waitSynced();
}

describe('NetworkPolicyController', () => {
  it('realizes nothing before all three BOOKMARKs, then everything in one bundle', async () => {
    const { sw, c } = setup();
    c.replace('networkpolicies', [policy(1)]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(sw.bundles).toHaveLength(0);
    c.replace('addressgroups', [{ metadata: { name: 'ag' }, groupMembers: [member('client', '10.10.1.8')] }]);
    await c.waitSynced();
    expect(sw.bundles).toHaveLength(1);
    // 4 bypass + 3 clauses + 1 action + 2 metric + 1 isolation
    expect(sw.bundles[0]).toHaveLength(11);
    await c.stop();
  });

  it('applies a group patch as one bundle holding only the new clause flow', async () => {
    const { sw, c } = setup();
    await initial(c);
    c.apply('addressgroups', 'MODIFIED', 'ag', {
      metadata: { name: 'ag' },
      addedGroupMembers: [member('client2', '10.10.2.9')],
    });
    await c.waitSynced();
    expect(sw.bundles).toHaveLength(2);
    expect(sw.bundles[1]!.map((m) => m.command)).toEqual(['ADD']);
    await c.stop();
  });

  it('after a lost watch keeps the flows, and an identical resync sends nothing', async () => {
    const { sw, c } = setup();
    await initial(c);
    for (const r of ['networkpolicies', 'appliedtogroups', 'addressgroups'] as const) c.lost(r);
    // Events while not synced do not touch the switch.
    c.podsChanged();
    await initial(c);
    expect(sw.bundles).toHaveLength(1);
    await c.stop();
  });

  it('reports realization once per generation', async () => {
    const { conn, c } = setup();
    await initial(c);
    await new Promise((r) => setTimeout(r, 10));
    c.apply('networkpolicies', 'MODIFIED', 'uid-1', policy(2));
    await c.waitSynced();
    await new Promise((r) => setTimeout(r, 10));
    const statuses = conn.posts.filter((p) => p.kind === 'NetworkPolicyStatus');
    expect(statuses.map((p) => p.path)).toEqual([
      '/apis/controlplane.antrea.io/v1beta2/networkpolicies/uid-1/status',
      '/apis/controlplane.antrea.io/v1beta2/networkpolicies/uid-1/status',
    ]);
    expect(
      statuses.map((p) => (p.object as { nodes: Array<{ generation: number }> }).nodes[0]!.generation),
    ).toEqual([1, 2]);
    await c.stop();
  });

  it('sends per-policy counter deltas from the metric flows as a NodeStatsSummary', async () => {
    const { sw, conn, c, ctx } = setup();
    await initial(c);
    const metric = ctx.pipeline.id('IngressMetric');
    const cookie = ctx.cookies.cookie(CookieCategory.NetworkPolicy, 1n);
    const stat = (state: bigint, packets: bigint, bytes: bigint): FlowStats => ({
      table: metric,
      cookie,
      match: [{ field: 'ct_state', value: state, mask: 0x21n }],
      actions: [],
      packetCount: packets,
      byteCount: bytes,
    });
    sw.stats = [stat(0x21n, 2n, 148n), stat(0x20n, 10n, 1000n)];
    await c.reportStats();
    sw.stats = [stat(0x21n, 3n, 222n), stat(0x20n, 14n, 1400n)];
    await c.reportStats();
    const sums = conn.posts.filter((p) => p.kind === 'NodeStatsSummary').map((p) => p.object as never);
    expect(sums).toHaveLength(2);
    const stats = (s: { networkPolicies: Array<{ trafficStats: unknown }> }) =>
      s.networkPolicies[0]!.trafficStats;
    expect(stats(sums[0]!)).toEqual({ packets: 12, bytes: 1148, sessions: 2 });
    expect(stats(sums[1]!)).toEqual({ packets: 5, bytes: 474, sessions: 1 });
    await c.stop();
  });
});

describe('NetworkPolicyController: FQDN peers', () => {
  const acnp: NetworkPolicy = {
    metadata: { name: 'uid-f', generation: 1 },
    rules: [
      {
        direction: 'Out',
        to: { fqdns: ['*.Test.example'] },
        priority: 0,
        action: 'Allow',
        enableLogging: false,
      },
      {
        direction: 'Out',
        to: { ipBlocks: [{ cidr: { ip: v4('0.0.0.0'), prefixLength: 0 } }] },
        priority: 1,
        action: 'Drop',
        enableLogging: false,
      },
    ],
    appliedToGroups: ['atg'],
    tierPriority: 250,
    priority: 1,
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'fqdn', uid: 'uid-f' },
  };
  const dnsFrame = (name: string, ip: string) => {
    const dns = encodeDnsMessage({
      id: 1,
      response: true,
      rcode: 0,
      questions: [{ name, type: DNS_TYPE.A }],
      answers: [{ name, type: DNS_TYPE.A, ttl: 60, data: ip }],
    });
    const head = Buffer.alloc(42);
    head.writeUInt16BE(0x0800, 12);
    head[14] = 0x45;
    head.writeUInt16BE(28 + dns.length, 16);
    head[23] = 17;
    head.writeUInt16BE(53, 34);
    return Buffer.concat([head, dns]);
  };
  const flowsOf = (mods: readonly FlowMod[]) =>
    mods.filter((m) => m.command === 'ADD').map((m) => formatFlow(m));

  it("intercepts DNS answers to the rule's Pods and allows a learned address before the answer goes on", async () => {
    const { sw, c } = setup();
    c.replace('networkpolicies', [acnp]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    c.replace('addressgroups', []);
    await c.waitSynced();
    const first = flowsOf(sw.bundles[0]!);
    // The Pod's DNS replies (UDP and TCP) pause to the agent; no address is allowed yet.
    expect(first.filter((f) => f.includes('controller(') && f.includes('pause'))).toHaveLength(2);
    expect(first.some((f) => f.includes('nw_dst=198.51.100.7'))).toBe(false);

    const before = sw.bundles.length;
    const ok = await c.onDnsResponse({ packet: dnsFrame('a.test.example', '198.51.100.7') } as PacketIn2);
    expect(ok).toBe(true);
    // The answer went on only after the bundle with the learned address.
    expect(sw.bundles.length).toBe(before + 1);
    expect(flowsOf(sw.bundles.at(-1)!).some((f) => f.includes('nw_dst=198.51.100.7'))).toBe(true);
    // A name the rule does not select adds nothing.
    expect(await c.onDnsResponse({ packet: dnsFrame('a.other.example', '198.51.100.8') } as PacketIn2)).toBe(
      true,
    );
    expect(sw.bundles.length).toBe(before + 1);
    await c.stop();
  });
  it('holds an answer that arrives before the first realization until it, then learns it', async () => {
    const { sw, c } = setup();
    const answered = c.onDnsResponse({ packet: dnsFrame('a.test.example', '198.51.100.9') } as PacketIn2);
    await new Promise((r) => setTimeout(r, 10));
    c.replace('networkpolicies', [acnp]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    c.replace('addressgroups', []);
    expect(await answered).toBe(true);
    expect(flowsOf(sw.bundles.at(-1)!).some((f) => f.includes('nw_dst=198.51.100.9'))).toBe(true);
    await c.stop();
  });
  it('delivers an answer that arrives before any realization once the realize timeout is up', async () => {
    vi.useFakeTimers();
    try {
      const { c } = setup(undefined, { realizeTimeoutMs: 50 });
      let delivered: boolean | undefined;
      void c
        .onDnsResponse({ packet: dnsFrame('a.test.example', '198.51.100.9') } as PacketIn2)
        .then((ok) => (delivered = ok));
      await vi.advanceTimersByTimeAsync(40);
      expect(delivered).toBeUndefined();
      await vi.advanceTimersByTimeAsync(20);
      // No rule selects the name yet, so it goes on unchanged (the Pod is not cut off from DNS).
      expect(delivered).toBe(true);
      // The timed-out waiter is gone: the first realization later finds none of it.
      expect((c as unknown as { syncWaiters: unknown[] }).syncWaiters).toEqual([]);
      await c.stop();
    } finally {
      vi.useRealTimers();
    }
  });
  it('holds back a repeated answer whose address the flows do not have yet (no realization during a resync)', async () => {
    const { sw, c } = setup(undefined, { realizeTimeoutMs: 50 });
    c.replace('networkpolicies', [acnp]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    c.replace('addressgroups', []);
    await c.waitSynced();
    const answer = () => c.onDnsResponse({ packet: dnsFrame('a.test.example', '198.51.100.4') } as PacketIn2);
    // A resync in progress: the policies' new state is in, the groups' is not (a mixed state).
    c.lost('addressgroups');
    c.lost('networkpolicies');
    c.replace('networkpolicies', [acnp]);
    // Learned, but no realization can run: dropped after the timeout.
    expect(await answer()).toBe(false);
    // The Pod asks again: nothing new to learn, yet the address is still not in the flows.
    expect(await answer()).toBe(false);
    expect(sw.bundles.flat().some((m) => formatFlow(m).includes('198.51.100.4'))).toBe(false);
    // The answers that gave up left no waiter behind.
    expect((c as unknown as { realizeWaiters: unknown[] }).realizeWaiters).toEqual([]);
    // The resync realizes the cached address; from then on the answer goes on at once.
    c.replace('addressgroups', []);
    await c.waitSynced();
    expect(flowsOf(sw.bundles.at(-1)!).some((f) => f.includes('nw_dst=198.51.100.4'))).toBe(true);
    const bundles = sw.bundles.length;
    expect(await answer()).toBe(true);
    expect(sw.bundles.length).toBe(bundles);
    await c.stop();
  });
  it('never holds an answer: a failed realization, a resync with the controller and stop() each release it', async () => {
    // A timeout far longer than the test: each answer below is released by the controller itself.
    const { sw, c } = setup(undefined, { realizeTimeoutMs: 600_000 });
    c.replace('networkpolicies', [acnp]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    c.replace('addressgroups', []);
    await c.waitSynced();
    const answer = (name: string, ip: string) => c.onDnsResponse({ packet: dnsFrame(name, ip) } as PacketIn2);
    // The switch refuses the bundle: dropped (the Pod's resolver asks again), not held.
    sw.failing = true;
    expect(await answer('a.test.example', '198.51.100.1')).toBe(false);
    sw.failing = false;
    // Asked again: nothing new to learn, but the failed realization left the flows behind, so the
    // answer waits for one that succeeds.
    const bundles = sw.bundles.length;
    expect(await answer('a.test.example', '198.51.100.1')).toBe(true);
    expect(sw.bundles.length).toBe(bundles + 1);
    expect(flowsOf(sw.bundles.at(-1)!).some((f) => f.includes('nw_dst=198.51.100.1'))).toBe(true);
    // A resync starts (no realization until every resource is in again), then the agent stops.
    c.lost('addressgroups');
    c.lost('networkpolicies');
    c.replace('networkpolicies', [acnp]);
    const pending = answer('b.test.example', '198.51.100.2');
    await new Promise((r) => setTimeout(r, 20));
    await c.stop();
    expect(await pending).toBe(false);
    // After stop() an answer with a new address is dropped at once.
    expect(await answer('c.test.example', '198.51.100.3')).toBe(false);
  });

  it('while the controller is unreachable the last state still realizes FQDN answers', async () => {
    const { sw, c } = setup();
    c.replace('networkpolicies', [acnp]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    c.replace('addressgroups', []);
    await c.waitSynced();
    // Every watch ended (controller restarting) and nothing new came in yet.
    for (const r of ['networkpolicies', 'appliedtogroups', 'addressgroups'] as const) c.lost(r);
    expect(await c.onDnsResponse({ packet: dnsFrame('a.test.example', '198.51.100.9') } as PacketIn2)).toBe(
      true,
    );
    expect(flowsOf(sw.bundles.at(-1)!).some((f) => f.includes('nw_dst=198.51.100.9'))).toBe(true);
    await c.stop();
  });
});

describe('NetworkPolicyController: toServices peers', () => {
  const acnp: NetworkPolicy = {
    metadata: { name: 'uid-s', generation: 1 },
    rules: [
      {
        direction: 'Out',
        to: { toServices: [{ namespace: 'ns', name: 'svc-a' }] },
        priority: 0,
        action: 'Allow',
        enableLogging: false,
      },
    ],
    appliedToGroups: ['atg'],
    tierPriority: 250,
    priority: 1,
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'to-svc', uid: 'uid-s' },
  };
  const reg7Flows = (mods: readonly FlowMod[] | undefined) =>
    (mods ?? []).filter((m) => formatFlow(m).includes('reg7=')).map((m) => `${m.command} ${formatFlow(m)}`);

  it("realizes the rule again when the referenced Service's groups change, and only then", async () => {
    const groups = new ServiceGroupIndex();
    const { sw, c } = setup(groups);
    c.replace('networkpolicies', [acnp]);
    c.replace('appliedtogroups', [{ metadata: { name: 'atg' }, groupMembers: [member('web')] }]);
    c.replace('addressgroups', []);
    await c.waitSynced();
    // The Service does not exist yet: the rule has no peer and selects nothing.
    expect(reg7Flows(sw.bundles[0])).toEqual([]);
    const realized = c.realizations;

    // Created later: its port's group is allowed without any policy change.
    groups.update([['ns/svc-a', [0x42]]]);
    await c.waitSynced();
    expect(c.realizations).toBe(realized + 1);
    expect(reg7Flows(sw.bundles.at(-1))).toEqual([
      'ADD cookie=0x1020000000000, table=13, priority=64000,ip,reg7=0x42 actions=conjunction(1,1/3)',
    ]);

    // Another Service, or the same ids again: nothing to do.
    groups.update([['ns/svc-b', [0x43]]]);
    groups.update([['ns/svc-a', [0x42]]]);
    await c.waitSynced();
    expect(c.realizations).toBe(realized + 1);

    // A second port, then the Service deleted.
    groups.update([['ns/svc-a', [0x42, 0x44]]]);
    await c.waitSynced();
    expect(reg7Flows(sw.bundles.at(-1))).toEqual([
      'ADD cookie=0x1020000000000, table=13, priority=64000,ip,reg7=0x44 actions=conjunction(1,1/3)',
    ]);
    groups.update([['ns/svc-a', []]]);
    await c.waitSynced();
    expect(reg7Flows(sw.bundles.at(-1)).map((f) => f.split(' ')[0])).toEqual([
      'DELETE_STRICT',
      'DELETE_STRICT',
    ]);
    await c.stop();
  });
});
