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
  servicePortFlows,
  serviceStaticFlows,
  type TracedService,
  TraceflowAgent,
  type TraceflowApi,
  type TraceflowHandlers,
  tunnelFlows,
} from '@antrea-ts/agent';
import type { Traceflow, TraceflowNodeResult, TraceflowPacket, TraceflowSpec } from '@antrea-ts/apis';
import { type OvsInstance, type PodBed, startPodBed, waitFor } from '@antrea-ts/harness';
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
/** A Service without endpoints (TCP 80, UDP 53): AntreaProxy rejects connections to it. */
const NO_ENDPOINTS = {
  clusterIp: '10.96.0.12',
  port: 80,
  protocol: 'TCP' as const,
  groupId: 12,
  endpoints: [],
};
const NO_ENDPOINTS_UDP = { ...NO_ENDPOINTS, port: 53, protocol: 'UDP' as const, groupId: 13 };
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
  async service(namespace: string, name: string): Promise<TracedService | undefined> {
    if (`${namespace}/${name}` !== 'x/none') return undefined;
    return { clusterIps: [NO_ENDPOINTS.clusterIp], ports: [NO_ENDPOINTS, NO_ENDPOINTS_UDP] };
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
  let bed: PodBed;
  let ovs: OvsInstance;
  let conn: OfConnection;
  let packetIns: OpenFlowBridge;
  let handler: PacketInHandler;
  let agent: TraceflowAgent;
  let flows: FlowCache;
  const api = new MemoryTraceflowApi();
  const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
  const dump = async () =>
    (await ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', '--no-stats', BR])).split('\n');

  /** Waits until the flows of a Traceflow's tag (DSCP, so nw_tos = tag << 2) are on the switch. */
  const tagFlowsIn = (tag: number) =>
    waitFor(
      'flows of the tag',
      async () => (await dump()).some((l) => l.includes(`nw_tos=${tag << 2}`)) || undefined,
      10_000,
    );

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow10', 'OpenFlow15'], pods: PODS, logger });
    ovs = bed.ovs;
    await bed.addPort('gw0', ['type=internal', `ofport_request=${GW.ofport}`]);
    await bed.addPort('tun0', [
      'type=geneve',
      'options:remote_ip=flow',
      'options:key=flow',
      `ofport_request=${TUN}`,
    ]);
    bed.runIn(bed.pods.get('b')!, 'server', ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', 'SYSTEM:echo hello']);
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
      ['service', serviceStaticFlows(ctx)],
      ['svc/none', servicePortFlows(ctx, NO_ENDPOINTS, 'fiveTuple').flows],
      ['svc/none-udp', servicePortFlows(ctx, NO_ENDPOINTS_UDP, 'fiveTuple').flows],
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
          hostIfName: bed.pods.get(p.name)!.hostPort,
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
    await bed?.stop();
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
    await tagFlowsIn(19);
    const out = await bed.pods
      .get('a')!
      .netns.exec(['socat', '-T', '2', '-', `TCP:${PODS[1].ip}:8080,connect-timeout=3`], {
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

  it('a Service without endpoints: LB Rejected; the injected packet is not answered, a live client is still refused', async () => {
    const before = handler.rejected;
    api.run('no-endpoints', 27, {
      source: { namespace: 'x', pod: 'a' },
      destination: { namespace: 'x', service: 'none' },
      packet: { ipHeader: { protocol: 6 } },
    });
    const expected = [
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: PODS[0].ip },
      { component: 'LB', action: 'Rejected' },
    ];
    expect((await api.result('no-endpoints')).result.observations).toEqual(expected);
    // Not real traffic: no TCP RST goes back to the Pod for it (as for a Reject rule's traced packet).
    expect(handler.rejected).toBe(before);

    const a = bed.pods.get('a')!;
    await a.netns.exec(['ip', 'neigh', 'replace', GW.ip, 'lladdr', GW.mac, 'dev', 'eth0']);
    await a.netns.exec([
      'ip',
      'route',
      'replace',
      `${NO_ENDPOINTS.clusterIp}/32`,
      'via',
      GW.ip,
      'dev',
      'eth0',
    ]);
    api.run('no-endpoints-live', 31, {
      source: { namespace: 'x', pod: 'a' },
      destination: { namespace: 'x', service: 'none' },
      packet: { ipHeader: { protocol: 17 }, transportHeader: { udp: { dstPort: NO_ENDPOINTS_UDP.port } } },
      liveTraffic: true,
    });
    await tagFlowsIn(31);
    // UDP, as nothing retransmits it: only the traced datagram itself can be refused here.
    const refused = await a.netns
      .exec(['socat', '-T', '3', '-', `UDP:${NO_ENDPOINTS_UDP.clusterIp}:${NO_ENDPOINTS_UDP.port}`], {
        input: 'q\n',
        timeoutMs: 10_000,
      })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    // The reject of a UDP datagram is ICMP host administratively prohibited (EHOSTUNREACH), as Antrea's.
    expect(refused?.message).toMatch(/No route to host/);
    expect((await api.result('no-endpoints-live')).result.observations).toEqual(expected);
    expect(handler.rejected).toBe(before + 1);
  });
});
