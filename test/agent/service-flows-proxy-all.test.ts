// AntreaProxy beyond ClusterIP on real userspace ovs-vswitchd, without the agent: the OVS netns
// of a Pod bed plays the Node (antrea-gw0 with the gateway IP, an uplink veth with the Node IP,
// iptables and routes written by the agent's own NodePortIptables and ServiceRoutes), a second
// netns on the uplink plays a host outside the cluster. Pods reach a LoadBalancer IP; the outside
// host reaches NodeIP:nodePort over TCP and UDP and the LoadBalancer IP through the Node; the Node
// itself reaches a ClusterIP; externalTrafficPolicy Local without a local endpoint forwards nothing.
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  ExecCommandRunner,
  FlowCache,
  gatewayFlows,
  HostNetwork,
  NodePortIptables,
  OfConnection,
  type OwnerChange,
  Pipeline,
  pipelineFlows,
  podFlows,
  type ServicePortFlowConfig,
  ServiceRoutes,
  servicePortFlows,
  serviceStaticFlows,
} from '@antrea-ts/agent';
import {
  createNetns,
  createVethPair,
  disableTxChecksumOffload,
  NET_PREFIX,
  type Netns,
  type PodBed,
  run,
  startPodBed,
  uniqueTag,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const BR = 'br-int';
const GW_NAME = 'gw0';
const GW = { ofport: 32769, mac: '02:00:0a:0a:01:01', ip: '10.10.1.1' };
const NODE_IP = '192.168.77.1';
const OUTSIDE_IP = '192.168.77.2';
const LB_IP = '172.31.31.10';
const PODS = [
  { name: 'a', ofport: 5, mac: '02:00:0a:0a:01:05', ip: '10.10.1.5' },
  { name: 'b', ofport: 6, mac: '02:00:0a:0a:01:06', ip: '10.10.1.6' },
] as const;
const B = { ip: '10.10.1.6', port: 8080 };

/** TCP 80 with a LoadBalancer IP and nodePort 30080 (Cluster policy, its endpoint on this Node). */
const WEB: ServicePortFlowConfig = {
  clusterIp: '10.96.0.10',
  port: 80,
  protocol: 'TCP',
  groupId: 10,
  endpoints: [B],
  externalIps: [LB_IP],
  nodePort: 30080,
};
const DNS: ServicePortFlowConfig = {
  clusterIp: '10.96.0.11',
  port: 53,
  protocol: 'UDP',
  groupId: 11,
  endpoints: [{ ip: B.ip, port: 5353 }],
  nodePort: 30053,
};
/** externalTrafficPolicy Local whose endpoints are all on other Nodes (here: none local). */
const LOCAL_NONE: ServicePortFlowConfig = {
  clusterIp: '10.96.0.12',
  port: 80,
  protocol: 'TCP',
  groupId: 12,
  endpoints: [B],
  nodePort: 30081,
  local: { groupId: 13, endpoints: [] },
};
const SERVICES = [WEB, DNS, LOCAL_NONE];
/** Pod b's UDP 5353: answers each datagram with "b". */
const UDP_ECHO_B = `
const sock = require('node:dgram').createSocket('udp4');
sock.on('message', (_m, from) => sock.send('b\\n', from.port, from.address));
sock.bind(5353);
`;

describe('AntreaProxy proxyAll flows and host rules on real ovs-vswitchd', () => {
  let bed: PodBed;
  let outside: Netns;
  let conn: OfConnection;
  let iptables: NodePortIptables;
  let routes: ServiceRoutes;
  const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
  /** Commands on the Node (the OVS netns), as something that can also be a client. */
  const node = {
    exec: (argv: readonly string[], o?: { input?: string; timeoutMs?: number }) =>
      run(argv, { netns: bed.ovs.netns, ...o }),
  };
  const inNode = (argv: string[]) => node.exec(argv);
  /** One TCP connection; the answer is what the server printed (its name and the peer it saw). */
  const tcp = (ns: Pick<Netns, 'exec'>, ip: string, port: number) =>
    ns
      .exec(['socat', '-t', '2', '-T', '5', 'STDIO', `TCP:${ip}:${port},connect-timeout=3`], {
        input: '',
        timeoutMs: 15_000,
      })
      .then((out) => out.trim())
      .catch(() => 'failed');
  const udp = (ns: Netns, ip: string, port: number) =>
    ns
      .exec(['socat', '-T', '3', 'STDIO', `UDP:${ip}:${port}`], { input: 'q\n', timeoutMs: 15_000 })
      .then((out) => out.trim())
      .catch(() => 'failed');

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow10', 'OpenFlow15'], pods: PODS, logger });
    await bed.addPort(GW_NAME, ['type=internal', `ofport_request=${GW.ofport}`]);
    // The Node: gateway and uplink addresses, forwarding; what kubelet and the agent set up.
    await inNode(['ip', 'link', 'set', GW_NAME, 'address', GW.mac]);
    await inNode(['ip', 'addr', 'add', `${GW.ip}/24`, 'dev', GW_NAME]);
    await inNode(['ip', 'link', 'set', GW_NAME, 'up']);
    await disableTxChecksumOffload(GW_NAME, bed.ovs.netns);
    await inNode(['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    const tag = uniqueTag();
    outside = await createNetns(`${NET_PREFIX}-${tag}-outside`);
    await createVethPair(
      { name: `${NET_PREFIX}${tag}up`, netns: bed.ovs.netns },
      { name: 'eth0', netns: outside.name },
    );
    await disableTxChecksumOffload('eth0', outside.name);
    await inNode(['ip', 'addr', 'add', `${NODE_IP}/24`, 'dev', `${NET_PREFIX}${tag}up`]);
    await inNode(['ip', 'link', 'set', `${NET_PREFIX}${tag}up`, 'up']);
    await outside.exec(['ip', 'addr', 'add', `${OUTSIDE_IP}/24`, 'dev', 'eth0']);
    await outside.exec(['ip', 'link', 'set', 'eth0', 'up']);
    // The outside host reaches the LoadBalancer IP through the Node (what a load balancer or BGP does).
    await outside.exec(['ip', 'route', 'add', `${LB_IP}/32`, 'via', NODE_IP]);
    for (const p of bed.pods.values()) {
      await p.netns.exec(['ip', 'neigh', 'replace', GW.ip, 'lladdr', GW.mac, 'dev', 'eth0']);
      await p.netns.exec(['ip', 'route', 'add', 'default', 'via', GW.ip, 'dev', 'eth0']);
    }
    const b = bed.pods.get('b')!;
    bed.runIn(b, 'web', ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', 'SYSTEM:echo b $SOCAT_PEERADDR']);
    // One process answering every datagram: socat's UDP-RECVFROM,fork forks a shell per datagram,
    // and under load its answer missed the client's 3 s (as in service-flows.test.ts).
    bed.runIn(b, 'dns', [process.execPath, '-e', UDP_ECHO_B]);
    conn = new OfConnection({ socketPath: bed.ovs.bridgeMgmtSocket(BR), logger });
    conn.start();
    await conn.waitConnected(10_000);
    const flows = new FlowCache(conn, logger);
    const proxyAllNode = { gatewayIp: GW.ip, gatewayMac: GW.mac, nodePortAddresses: [NODE_IP] };
    await flows.replaceMany([
      ['pipeline', pipelineFlows(ctx)],
      ['gateway', gatewayFlows(ctx, GW)],
      ['service', serviceStaticFlows(ctx, proxyAllNode)],
      ...PODS.map((p): [string, ReturnType<typeof podFlows>] => [`pod/${p.name}`, podFlows(ctx, p, GW.mac)]),
      ...SERVICES.map((svc): OwnerChange => {
        const { flows: f, groups } = servicePortFlows(ctx, svc, 'fiveTuple');
        return [`svc/${svc.groupId}`, f, groups];
      }),
    ]);
    const runner = new ExecCommandRunner(bed.ovs.netns);
    iptables = new NodePortIptables(runner, logger);
    routes = new ServiceRoutes(new HostNetwork(runner), GW_NAME, logger);
    const ports = SERVICES.map(
      (s) => ({ protocol: s.protocol === 'UDP' ? 'udp' : 'tcp', port: s.nodePort! }) as const,
    );
    await iptables.sync([NODE_IP], ports);
    // Twice: the second write must change nothing (no second jump, same rules).
    await iptables.sync([NODE_IP], ports);
    await routes.sync([...SERVICES.map((s) => s.clusterIp), LB_IP]);
  }, 120_000);

  afterAll(async () => {
    await conn?.stop();
    await outside?.delete();
    await bed?.stop();
  });

  it('a Pod reaches the LoadBalancer IP like the ClusterIP (same group, same endpoint)', async () => {
    expect(await tcp(bed.pods.get('a')!.netns, LB_IP, 80)).toBe(`b ${PODS[0].ip}`);
    expect(await tcp(bed.pods.get('a')!.netns, WEB.clusterIp, 80)).toBe(`b ${PODS[0].ip}`);
  }, 60_000);

  it('the outside host reaches NodeIP:nodePort over TCP and UDP, and the endpoint sees its address', async () => {
    expect(await tcp(outside, NODE_IP, 30080)).toBe(`b ${OUTSIDE_IP}`);
    expect(await udp(outside, NODE_IP, 30053)).toBe('b');
    // Through the virtual NodePort IP, as the DNAT rule sends it.
    const nat = await inNode(['iptables-save', '-t', 'nat']);
    expect(nat.split('\n').filter((l) => l === '-A PREROUTING -j ANTREA-NODEPORT-IP')).toHaveLength(1);
    expect(nat).toContain(
      '-A ANTREA-NODEPORT -p tcp -m tcp --dport 30080 -j DNAT --to-destination 169.254.0.252',
    );
  }, 60_000);

  it('a Pod reaches NodeIP:nodePort in OVS (NodePortMark), without the Node’s iptables', async () => {
    expect(await tcp(bed.pods.get('a')!.netns, NODE_IP, 30080)).toBe(`b ${PODS[0].ip}`);
  }, 60_000);

  it('the outside host reaches the LoadBalancer IP routed to the Node', async () => {
    expect(await tcp(outside, LB_IP, 80)).toBe(`b ${OUTSIDE_IP}`);
  }, 60_000);

  it('the Node itself reaches a ClusterIP (routed to antrea-gw0, from the gateway IP) and its own NodePort', async () => {
    expect(await tcp(node, WEB.clusterIp, 80)).toBe(`b ${GW.ip}`);
    expect(await tcp(node, NODE_IP, 30080)).toBe(`b ${NODE_IP}`);
  }, 60_000);

  it('externalTrafficPolicy Local without a local endpoint: nothing from outside is forwarded, Pods still reach it', async () => {
    expect(await tcp(outside, NODE_IP, 30081)).toBe('failed');
    expect(await tcp(bed.pods.get('a')!.netns, LOCAL_NONE.clusterIp, 80)).toBe(`b ${PODS[0].ip}`);
  }, 60_000);

  it('externalTrafficPolicy Local does not apply to the Node itself: its own NodePort reaches the endpoint (Cluster, as Antrea)', async () => {
    expect(await tcp(node, NODE_IP, 30081)).toBe(`b ${NODE_IP}`);
    expect(await tcp(outside, NODE_IP, 30081)).toBe('failed');
  }, 60_000);

  it('cleanup (proxyAll off) removes the chains, the jumps and the routes; NodePorts stop answering', async () => {
    await iptables.cleanup();
    await routes.cleanup();
    await iptables.cleanup(); // idempotent
    expect(await inNode(['iptables-save', '-t', 'nat'])).not.toContain('ANTREA-NODEPORT');
    expect(await inNode(['ip', 'route', 'show'])).not.toContain('169.254.0.253');
    expect(await tcp(outside, NODE_IP, 30080)).toBe('failed');
  }, 60_000);
});
