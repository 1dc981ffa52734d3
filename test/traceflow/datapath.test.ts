// Traceflow on real ovs-vswitchd: the agent pipeline (Pods, gateway, tunnel, a remote Node and an
// Antrea-native Drop rule) in a private netns, the Traceflow agent injecting crafted packets with
// packet-out and reading its observations back from packet-ins; live traffic from a Pod's netns.
import {
  CookieAllocator,
  conjunctionFlows,
  DEFAULT_FEATURES,
  FlowCache,
  gatewayFlows,
  isolationFlows,
  OfConnection,
  PacketInHandler,
  Pipeline,
  pipelineFlows,
  podFlows,
  remoteNodeTunnelFlows,
  TraceflowAgent,
  type TraceflowApi,
  type TraceflowHandlers,
  tunnelFlows,
} from '@antrea-ts/agent';
import type { Traceflow, TraceflowNodeResult, TraceflowPacket, TraceflowSpec } from '@antrea-ts/apis';
import {
  createNetns,
  createVethPair,
  disableTxChecksumOffload,
  ManagedProcess,
  makeTempDir,
  type Netns,
  type OvsInstance,
  startOvs,
  type TempDir,
  uniqueTag,
  waitFor,
} from '@antrea-ts/harness';
import type { OpenFlowBridge } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const BR = 'br-int';
const GW = { ofport: 32769, mac: '02:00:0a:0a:01:01', ip: '10.10.1.1' };
const TUN = 32768;
const PEER = { podCidr: '10.10.2.0/24', nodeIp: '192.0.2.12', gatewayIp: '10.10.2.1' };
const PODS = [
  { name: 'a', ofport: 5, mac: '02:00:0a:0a:01:05', ip: '10.10.1.5' },
  { name: 'b', ofport: 6, mac: '02:00:0a:0a:01:06', ip: '10.10.1.6' },
] as const;
const DROP_CONJ = 42;
const ALLOW_CONJ = 43;
const RULES = new Map([
  [DROP_CONJ, { policy: 'AntreaClusterNetworkPolicy:deny-web', rule: 'drop-a', action: 'Drop' }],
  [ALLOW_CONJ, { policy: 'K8sNetworkPolicy:x/allow-8080', rule: 'ingress-0', action: 'Allow' }],
]);

/** The Kubernetes side played in memory: Traceflow events in, results out. */
class MemoryTraceflowApi implements TraceflowApi {
  handlers: TraceflowHandlers | undefined;
  readonly results = new Map<string, Array<{ result: TraceflowNodeResult; captured?: TraceflowPacket }>>();
  async watch(h: TraceflowHandlers): Promise<void> {
    this.handlers = h;
  }
  async stop(): Promise<void> {}
  async appendResult(name: string, result: TraceflowNodeResult, captured?: TraceflowPacket): Promise<void> {
    const list = this.results.get(name) ?? [];
    list.push({ result, ...(captured ? { captured } : {}) });
    this.results.set(name, list);
  }
  readonly failures = new Map<string, string>();
  async fail(name: string, reason: string): Promise<void> {
    this.failures.set(name, reason);
  }
  async podIp(): Promise<string | undefined> {
    return undefined;
  }
  run(name: string, tag: number, spec: TraceflowSpec): void {
    this.handlers!.upsert({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: { name },
      spec,
      status: { phase: 'Running', dataplaneTag: tag },
    } as Traceflow);
  }
  async result(name: string) {
    await waitFor(
      `result of ${name}`,
      async () => {
        if (this.failures.has(name)) throw new Error(`${name} failed: ${this.failures.get(name)}`);
        return (this.results.get(name)?.length ?? 0) > 0 || undefined;
      },
      20_000,
    );
    return this.results.get(name)![0]!;
  }
}

describe('Traceflow datapath on real ovs-vswitchd', () => {
  const tag = uniqueTag();
  let node: Netns;
  let ovs: OvsInstance;
  let conn: OfConnection;
  let packetIns: OpenFlowBridge;
  let handler: PacketInHandler;
  let agent: TraceflowAgent;
  let flows: FlowCache;
  let tmp: TempDir;
  let server: ManagedProcess;
  const api = new MemoryTraceflowApi();
  const pods = new Map<string, Netns>();
  const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
  const dump = async () =>
    (await ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', '--no-stats', BR])).split('\n');

  beforeAll(async () => {
    node = await createNetns(`ats-${tag}-tfn`);
    ovs = await startOvs({ netns: node.name, logger });
    await ovs.vsctl([
      'add-br',
      BR,
      '--',
      'set',
      'bridge',
      BR,
      'datapath_type=netdev',
      'protocols=OpenFlow10,OpenFlow15',
      'fail_mode=secure',
    ]);
    await ovs.vsctl([
      'add-port',
      BR,
      `tg${tag}`,
      '--',
      'set',
      'interface',
      `tg${tag}`,
      'type=internal',
      `ofport_request=${GW.ofport}`,
    ]);
    await ovs.vsctl([
      'add-port',
      BR,
      `tt${tag}`,
      '--',
      'set',
      'interface',
      `tt${tag}`,
      'type=geneve',
      'options:remote_ip=flow',
      'options:key=flow',
      `ofport_request=${TUN}`,
    ]);
    for (const pod of PODS) {
      const ns = await createNetns(`ats-${tag}-tf${pod.name}`);
      pods.set(pod.name, ns);
      const port = `tf${tag}${pod.name}`;
      await createVethPair({ name: 'eth0', netns: ns.name }, { name: port, netns: node.name });
      await disableTxChecksumOffload('eth0', ns.name);
      await ns.exec(['ip', 'link', 'set', 'eth0', 'address', pod.mac]);
      await ns.exec(['ip', 'addr', 'add', `${pod.ip}/24`, 'dev', 'eth0']);
      await ovs.vsctl(['add-port', BR, port, '--', 'set', 'interface', port, `ofport_request=${pod.ofport}`]);
    }
    tmp = makeTempDir('tfdp');
    server = new ManagedProcess({
      name: 'server',
      netns: pods.get('b')!.name,
      logFile: `${tmp.path}/server.log`,
      argv: ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', 'SYSTEM:echo hello'],
    });
    conn = new OfConnection({ socketPath: ovs.bridgeMgmtSocket(BR), logger });
    conn.start();
    await conn.waitConnected(10_000);
    flows = new FlowCache(conn, logger);
    await flows.replaceMany([
      ['pipeline', pipelineFlows(ctx)],
      ['gateway', gatewayFlows(ctx, GW)],
      ['tunnel', tunnelFlows(ctx, TUN)],
      ['peer', remoteNodeTunnelFlows(ctx, PEER, GW.mac)],
      ...PODS.map((p): [string, ReturnType<typeof podFlows>] => [`pod/${p.name}`, podFlows(ctx, p, GW.mac)]),
      // Antrea-native ingress Drop: a may not open TCP 80 on b; a K8s-style Allow of TCP 8080.
      [
        'policy',
        conjunctionFlows(ctx, [
          {
            conjId: DROP_CONJ,
            direction: 'In',
            table: 'AntreaPolicyIngressRule',
            priority: 64000,
            actionPriority: 64000,
            action: 'Drop',
            peer: [{ ip: true, nw_src: PODS[0].ip }],
            appliedTo: [{ reg1: PODS[1].ofport }],
            services: [{ tcp: true, tcp_dst: 80 }],
          },
          {
            conjId: ALLOW_CONJ,
            direction: 'In',
            table: 'IngressRule',
            priority: 200,
            actionPriority: 190,
            action: 'Allow',
            peer: [{ ip: true, nw_src: PODS[0].ip }],
            appliedTo: [{ reg1: PODS[1].ofport }],
            services: [{ tcp: true, tcp_dst: 8080 }],
          },
        ]),
      ],
    ]);
    packetIns = conn.bridge;
    agent = new TraceflowAgent({
      nodeName: 'node-1',
      api,
      flows,
      ctx,
      node: { gatewayOfport: GW.ofport, gatewayIp: GW.ip, gatewayMac: GW.mac, tunnelOfport: TUN },
      pods: () =>
        PODS.map((p) => ({
          ...p,
          containerId: p.name,
          podName: p.name,
          podNamespace: 'x',
          hostIfName: `tf${tag}${p.name}`,
          ifName: 'eth0',
          netns: '',
          ipCidr: `${p.ip}/24`,
        })),
      packetOut: (po) => packetIns.sendPacketOut(po),
      rule: (id) => RULES.get(id),
      logger,
    });
    handler = new PacketInHandler({
      bridge: packetIns,
      logger,
      onTraceflow: (pi) => void agent.handlePacketIn(pi),
    });
    handler.start();
    await agent.start();
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    handler?.stop();
    await packetIns?.stop();
    await conn?.stop();
    await server?.stop();
    await ovs?.stop();
    for (const ns of pods.values()) await ns.delete();
    await node?.delete();
    tmp?.remove();
  });

  it('injects an ICMP echo from a to b and reports it delivered on this Node', async () => {
    api.run('intra', 7, { source: { namespace: 'x', pod: 'a' }, destination: { namespace: 'x', pod: 'b' } });
    const { result } = await api.result('intra');
    expect(result).toMatchObject({ node: 'node-1', role: 'sender' });
    expect(result.observations).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: PODS[0].ip },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'x/b' },
    ]);
    // The tag's flows are there while it runs and go when it ends.
    expect((await dump()).filter((l) => l.includes('nw_tos=28')).length).toBeGreaterThan(5);
    api.handlers!.upsert({
      metadata: { name: 'intra' },
      spec: {},
      status: { phase: 'Succeeded' },
    } as Traceflow);
    await waitFor(
      'flows removed',
      async () => !(await dump()).some((l) => l.includes('nw_tos=28')) || undefined,
      10_000,
    );
  });

  it('sends a packet for a remote Pod into the tunnel, naming the remote Node', async () => {
    api.run('inter', 11, { source: { namespace: 'x', pod: 'a' }, destination: { ip: '10.10.2.9' } });
    const { result } = await api.result('inter');
    expect(result.observations?.at(-1)).toEqual({
      component: 'Forwarding',
      componentInfo: 'Output',
      action: 'Forwarded',
      tunnelDstIP: PEER.nodeIp,
    });
  });

  it('names the Antrea-native rule that drops TCP 80 from a to b', async () => {
    api.run('drop', 15, {
      source: { namespace: 'x', pod: 'a' },
      destination: { namespace: 'x', pod: 'b' },
      packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80 } } },
    });
    const { result } = await api.result('drop');
    expect(result.observations).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: PODS[0].ip },
      {
        component: 'NetworkPolicy',
        componentInfo: 'IngressMetric',
        action: 'Dropped',
        networkPolicy: 'AntreaClusterNetworkPolicy:deny-web',
        networkPolicyRule: 'drop-a',
      },
    ]);
  });

  it('live traffic: tags the first new connection from a, still delivers it, and captures the packet', async () => {
    api.run('live', 19, {
      source: { namespace: 'x', pod: 'a' },
      destination: { namespace: 'x', pod: 'b' },
      packet: { transportHeader: { tcp: { dstPort: 8080 } } },
      liveTraffic: true,
    });
    await waitFor(
      'live flows',
      async () => (await dump()).some((l) => l.includes('nw_tos=76')) || undefined,
      10_000,
    );
    const out = await pods
      .get('a')!
      .exec(['socat', '-T', '2', '-', `TCP:${PODS[1].ip}:8080,connect-timeout=3`], {
        input: '',
        timeoutMs: 10_000,
      });
    expect(out.trim()).toBe('hello');
    const { result, captured } = await api.result('live');
    expect(result.observations?.slice(1)).toEqual([
      {
        component: 'NetworkPolicy',
        componentInfo: 'IngressRule',
        action: 'Forwarded',
        networkPolicy: 'K8sNetworkPolicy:x/allow-8080',
        networkPolicyRule: 'ingress-0',
      },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'x/b' },
    ]);
    expect(captured).toMatchObject({
      srcIP: PODS[0].ip,
      dstIP: PODS[1].ip,
      ipHeader: { protocol: 6 },
      transportHeader: { tcp: { dstPort: 8080, flags: 2 } },
    });
    // Live Traceflows stop following after the first packet.
    await waitFor(
      'live flows removed',
      async () => !(await dump()).some((l) => l.includes('nw_tos=76')) || undefined,
      10_000,
    );
  });

  it('reports a K8s isolation drop in IngressDefaultRule, and the packet goes no further', async () => {
    await flows.replace('isolation', isolationFlows(ctx, { ingress: [PODS[1].ofport], egress: [] }));
    api.run('isolated', 23, {
      source: { namespace: 'x', pod: 'a' },
      destination: { namespace: 'x', pod: 'b' },
      packet: { transportHeader: { udp: { dstPort: 53 } } },
    });
    const { result } = await api.result('isolated');
    expect(result.observations).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: PODS[0].ip },
      { component: 'NetworkPolicy', componentInfo: 'IngressDefaultRule', action: 'Dropped' },
    ]);
    await flows.remove('isolation');
  });
});
