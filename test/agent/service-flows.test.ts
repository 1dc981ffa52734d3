// AntreaProxy's flows on real userspace ovs-vswitchd, without the agent: Pods in netns on one
// netdev br-int, the agent's pipeline plus service flows and select groups pushed through
// FlowCache over a real OpenFlow connection, real TCP/UDP clients and servers in the Pods.
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  FlowCache,
  gatewayFlows,
  OfConnection,
  PacketInHandler,
  Pipeline,
  pipelineFlows,
  podFlows,
  type ServiceEndpoint,
  type ServicePortFlowConfig,
  servicePortFlows,
  serviceStaticFlows,
} from '@antrea-ts/agent';
import { type PodBed, type PodBedPod, startPodBed, waitFor } from '@antrea-ts/harness';
import { formatGroup } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const BR = 'br-int';
const GW = { ofport: 32769, mac: '02:00:0a:0a:01:01', ip: '10.10.1.1' };
const PODS = [
  { name: 'a', ofport: 5, mac: '02:00:0a:0a:01:05', ip: '10.10.1.5' },
  { name: 'b', ofport: 6, mac: '02:00:0a:0a:01:06', ip: '10.10.1.6' },
  { name: 'c', ofport: 7, mac: '02:00:0a:0a:01:07', ip: '10.10.1.7' },
] as const;
const ep = (pod: 'a' | 'b' | 'c', port: number): ServiceEndpoint => ({
  ip: PODS.find((p) => p.name === pod)!.ip,
  port,
});

/**
 * argv: name. Answers each datagram on port 5353 with the name, from one process: socat's
 * UDP-RECVFROM,fork forks a child (and a shell) per datagram, and under load answers went missing.
 */
const UDP_SERVER = `
const sock = require('node:dgram').createSocket('udp4');
sock.on('message', (_m, from) => sock.send(process.argv[1] + '\\n', from.port, from.address));
sock.bind(5353);
`;

/** argv: ip port firstSourcePort count; prints one answer per line ('' when none came in 5 s). */
const UDP_CLIENT = `
const dgram = require('node:dgram');
const [ip, port, first, n] = process.argv.slice(1);
(async () => {
  for (let sport = Number(first); sport < Number(first) + Number(n); sport++) {
    const sock = dgram.createSocket('udp4');
    await new Promise((resolve) => sock.bind(sport, resolve));
    const answer = new Promise((resolve) => {
      const timer = setTimeout(() => resolve(''), 5000);
      sock.once('message', (m) => { clearTimeout(timer); resolve(m.toString().trim()); });
    });
    sock.send('q\\n', Number(port), ip);
    console.log(await answer);
    sock.close();
  }
})();
`;

/** A service port whose group id is the last byte of its ClusterIP 10.96.0.x. */
const servicePort = (
  last: number,
  protocol: ServicePortFlowConfig['protocol'],
  port: number,
  endpoints: ServiceEndpoint[],
): ServicePortFlowConfig => ({ clusterIp: `10.96.0.${last}`, port, protocol, groupId: last, endpoints });

const WEB = servicePort(10, 'TCP', 80, [ep('b', 8080), ep('c', 8080)]);
const DNS = servicePort(11, 'UDP', 53, [ep('b', 5353)]);
const EMPTY = servicePort(12, 'TCP', 80, []);
const SELF = servicePort(13, 'TCP', 80, [ep('a', 8080)]);
const STICKY: ServicePortFlowConfig = {
  ...WEB,
  clusterIp: '10.96.0.14',
  groupId: 14,
  affinityTimeoutSeconds: 300,
};
const STICKY2: ServicePortFlowConfig = { ...STICKY, clusterIp: '10.96.0.15', groupId: 15 };
const DNS2 = servicePort(16, 'UDP', 53, [ep('b', 5353), ep('c', 5353)]);

describe('AntreaProxy flows on real ovs-vswitchd', () => {
  let bed: PodBed;
  let conn: OfConnection;
  let packetInConn: OfConnection;
  let handler: PacketInHandler;
  let flows: FlowCache;
  const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
  const pod = (name: string): PodBedPod => bed.pods.get(name)!;
  const service = (svc: ServicePortFlowConfig) => {
    const { flows: f, groups } = servicePortFlows(ctx, svc, 'fiveTuple');
    return flows.replace(`svc/${svc.groupId}`, f, groups);
  };
  /** One TCP connection from `from` to ip:port; the answer is the server Pod's name. */
  const tcp = (from: string, ip: string, port: number) =>
    pod(from).netns.exec(['socat', '-t', '2', '-T', '5', 'STDIO', `TCP:${ip}:${port},connect-timeout=5`], {
      input: '',
      timeoutMs: 15_000,
    });
  /**
   * One datagram from each of `n` source ports (from `firstPort` on), one after another, each a new
   * conntrack connection; the answers (the endpoints' names, '' for none within 5 s) in order.
   * A node script rather than socat: socat gives a reply only 0.5 s after its input ends.
   */
  const udpAnswers = async (from: string, svc: ServicePortFlowConfig, firstPort: number, n: number) => {
    const out = await pod(from).netns.exec(
      [process.execPath, '-e', UDP_CLIENT, svc.clusterIp, String(svc.port), String(firstPort), String(n)],
      { timeoutMs: 15_000 + n * 5_000 },
    );
    return out.split('\n').slice(0, n);
  };
  /** `ovs-ofctl -O OpenFlow15 dump-groups` line of one group. */
  const dumpedGroup = async (groupId: number) =>
    (await bed.ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]))
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith(`group_id=${groupId},`));
  const answers = async (from: string, svc: ServicePortFlowConfig, n: number): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push((await tcp(from, svc.clusterIp, svc.port)).trim());
    return out;
  };

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow10', 'OpenFlow15'], pods: PODS, logger });
    await bed.addPort('gw0', ['type=internal', `ofport_request=${GW.ofport}`]);
    for (const p of bed.pods.values()) {
      // Off-subnet destinations (ClusterIPs, the hairpin virtual IP) go to the gateway, as in a Pod.
      await p.netns.exec(['ip', 'neigh', 'replace', GW.ip, 'lladdr', GW.mac, 'dev', 'eth0']);
      await p.netns.exec(['ip', 'route', 'add', 'default', 'via', GW.ip, 'dev', 'eth0']);
      bed.runIn(p, `web-${p.name}`, ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', `SYSTEM:echo ${p.name}`]);
      bed.runIn(p, `dns-${p.name}`, [process.execPath, '-e', UDP_SERVER, p.name]);
    }
    conn = new OfConnection({ socketPath: bed.ovs.bridgeMgmtSocket(BR), logger });
    conn.start();
    await conn.waitConnected(10_000);
    // Packet-ins (the no-endpoint reject) on a second connection, as the agent does.
    packetInConn = new OfConnection({ socketPath: bed.ovs.bridgeMgmtSocket(BR), logger });
    packetInConn.start();
    await packetInConn.waitConnected(10_000);
    handler = new PacketInHandler({ bridge: packetInConn.bridge, logger });
    handler.start();
    flows = new FlowCache(conn, logger);
    await flows.replaceMany([
      ['pipeline', pipelineFlows(ctx)],
      ['gateway', gatewayFlows(ctx, GW)],
      ['service', serviceStaticFlows(ctx)],
      ...PODS.map((p): [string, ReturnType<typeof podFlows>] => [`pod/${p.name}`, podFlows(ctx, p, GW.mac)]),
    ]);
    for (const svc of [WEB, DNS, EMPTY, SELF, STICKY, STICKY2, DNS2]) await service(svc);
  }, 120_000);

  afterAll(async () => {
    handler?.stop();
    await packetInConn?.stop();
    await conn?.stop();
    await bed?.stop();
  });

  it('TCP to ClusterIP:port reaches an endpoint, and both endpoints get chosen', async () => {
    const got = await answers('a', WEB, 24);
    expect(new Set(got)).toEqual(new Set(['b', 'c']));
  }, 120_000);

  it('UDP to ClusterIP:port gets the endpoint’s answer from the ClusterIP', async () => {
    // A connected UDP socket accepts datagrams only from the address it sent to.
    const out = await pod('a').netns.exec(['socat', '-T', '3', 'STDIO', `UDP:${DNS.clusterIp}:${DNS.port}`], {
      input: 'q\n',
      timeoutMs: 15_000,
    });
    expect(out.trim()).toBe('b');
  }, 60_000);

  it('UDP from many source ports of one client is spread over both endpoints (selection_method=hash on the 5-tuple)', async () => {
    const got = await udpAnswers('a', DNS2, 41000, 24);
    expect(got).toHaveLength(24);
    expect(new Set(got)).toEqual(new Set(['b', 'c']));
    // The switch holds the group exactly as we print it, selection method included.
    const [wanted] = servicePortFlows(ctx, DNS2, 'fiveTuple').groups;
    expect(await dumpedGroup(DNS2.groupId)).toBe(formatGroup(wanted!));
    expect(formatGroup(wanted!)).toContain('selection_method=hash,fields(ip_src,ip_dst,udp_src,udp_dst)');
  }, 120_000);

  it('a group left without a selection method (the previous version) is rewritten with it', async () => {
    const old = servicePort(17, 'UDP', 54, [ep('b', 5353), ep('c', 5353)]);
    await bed.ovs.ofctl([
      '-O',
      'OpenFlow15',
      'add-group',
      BR,
      'group_id=17,type=select,bucket=bucket_id:0,weight:100,actions=drop',
    ]);
    expect(await dumpedGroup(17)).not.toContain('selection_method');
    // A restarted agent's FlowCache has no owner for it yet: the group goes out as add-or-modify.
    await service(old);
    expect(await dumpedGroup(17)).toBe(formatGroup(servicePortFlows(ctx, old, 'fiveTuple').groups[0]!));
    expect(new Set(await udpAnswers('a', old, 42000, 16))).toEqual(new Set(['b', 'c']));
  }, 120_000);

  it('no endpoints: the connection is refused (TCP RST from the packet-in handler)', async () => {
    const before = handler.rejected;
    const err = await tcp('a', EMPTY.clusterIp, EMPTY.port).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/Connection refused/);
    // The handler counts a reply once the switch acknowledges its packet-out (a barrier), which
    // under load can come after the client already saw the RST and exited: wait for it.
    await waitFor('reject counted', async () => handler.rejected > before, 30_000).catch(() => undefined);
    expect(handler.rejected).toBeGreaterThan(before);
  }, 60_000);

  it('hairpin: the only endpoint reaches itself through its Service', async () => {
    expect(await answers('a', SELF, 3)).toEqual(['a', 'a', 'a']);
    const dump = await bed.ovs.appctl(['dpctl/dump-conntrack', 'zone=65521']);
    expect(dump).toContain('169.254.0.253');
  }, 60_000);

  it('session affinity keeps one client on one endpoint', async () => {
    const got = await answers('a', STICKY, 12);
    expect(new Set(got).size).toBe(1);
    // Another client is free to land elsewhere, but is sticky too.
    expect(new Set(await answers('b', STICKY, 6)).size).toBe(1);
  }, 120_000);

  it("a removed affinity service port takes its clients' learned flows along, and only its own", async () => {
    await answers('a', STICKY, 1);
    await answers('a', STICKY2, 1);
    const learned = async () =>
      (
        await bed.ovs.ofctl([
          '-O',
          'OpenFlow15',
          'dump-flows',
          BR,
          `table=${ctx.pipeline.id('SessionAffinity')}`,
        ])
      )
        .split('\n')
        .filter((l) => l.includes('priority=200'));
    expect((await learned()).filter((l) => l.includes('nw_dst=10.96.0.15'))).toHaveLength(1);
    await flows.replaceMany([[`svc/${STICKY2.groupId}`, undefined]]);
    const after = await learned();
    expect(after.filter((l) => l.includes('nw_dst=10.96.0.15'))).toEqual([]);
    expect(after.filter((l) => l.includes('nw_dst=10.96.0.14')).length).toBeGreaterThan(0);
  }, 120_000);

  it('an endpoint removed: new connections go only to the remaining one', async () => {
    await service({ ...WEB, endpoints: [ep('c', 8080)] });
    expect(new Set(await answers('a', WEB, 12))).toEqual(new Set(['c']));
    const groups = await bed.ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]);
    expect(groups).toMatch(/group_id=10,type=select/);
  }, 120_000);

  it('after the switch lost its flows and groups, replay restores Service traffic; prune drops stale groups', async () => {
    await bed.ovs.ofctl(['-O', 'OpenFlow15', 'del-flows', BR]);
    await bed.ovs.ofctl(['-O', 'OpenFlow15', 'del-groups', BR]);
    await flows.replay();
    expect(new Set(await answers('a', WEB, 4))).toEqual(new Set(['c']));
    // A group left by an earlier agent run (no owner holds it).
    await bed.ovs.ofctl([
      '-O',
      'OpenFlow15',
      'add-group',
      BR,
      'group_id=999,type=select,bucket=actions=drop',
    ]);
    expect(await flows.pruneGroups()).toBe(1);
    const groups = await bed.ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]);
    expect(groups).not.toMatch(/group_id=999,/);
    expect(groups).toMatch(/group_id=10,/);
  }, 120_000);

  it('after ovs-vswitchd restarts, the replayed groups keep their selection method and UDP still spreads', async () => {
    const replayed = new Promise<void>((resolve) => {
      const off = conn.onConnected(() => {
        off();
        void flows.replay().then(() => resolve());
      });
    });
    await bed.ovs.restartVswitchd({ crash: true });
    await replayed;
    const [wanted] = servicePortFlows(ctx, DNS2, 'fiveTuple').groups;
    await waitFor(
      'group replayed',
      async () => (await dumpedGroup(DNS2.groupId)) === formatGroup(wanted!),
      30_000,
    );
    // The Pods' ports come back with the new ovs-vswitchd; allow them a moment before the traffic.
    await waitFor('UDP answered', async () => (await udpAnswers('a', DNS2, 43000, 1))[0] !== '', 30_000);
    expect(new Set(await udpAnswers('a', DNS2, 43001, 24))).toEqual(new Set(['b', 'c']));
  }, 180_000);

  it('a service port renamed in place (new owner and group, same ClusterIP:port) keeps answering', async () => {
    // As the proxier writes it: the new owner first, the old one removed, in one batch.
    const renamed = { ...WEB, groupId: 20, endpoints: [ep('c', 8080)] };
    const { flows: f, groups } = servicePortFlows(ctx, renamed, 'fiveTuple');
    await flows.replaceMany([
      ['svc/web-renamed', f, groups],
      [`svc/${WEB.groupId}`, undefined],
    ]);
    expect(new Set(await answers('a', WEB, 4))).toEqual(new Set(['c']));
    const dump = await bed.ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]);
    expect(dump).toMatch(/group_id=20,/);
    expect(dump).not.toMatch(/group_id=10,/);
  }, 120_000);
});
