// A Proxier on real userspace ovs-vswitchd, without the agent: Pods in netns on one netdev br-int,
// the agent's pipeline, and the Proxier fed Services and EndpointSlices by hand writing its groups
// and flows through a FlowCache over a real OpenFlow connection. Each Pod runs a TCP server on
// 8080 and a UDP server on 5353 that answer with the Pod's name.
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  FlowCache,
  gatewayFlows,
  OfConnection,
  Pipeline,
  Proxier,
  type ProxierOptions,
  pipelineFlows,
  podFlows,
  type ServiceHandlers,
} from '@antrea-ts/agent';
import { type PodBed, type PodBedPod, startPodBed } from '@antrea-ts/harness';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { pino } from 'pino';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const BR = 'br-int';
const GW = { ofport: 32769, mac: '02:00:0a:0a:01:01', ip: '10.10.1.1' };
export const BED_PODS = [
  { name: 'a', ofport: 5, mac: '02:00:0a:0a:01:05', ip: '10.10.1.5' },
  { name: 'b', ofport: 6, mac: '02:00:0a:0a:01:06', ip: '10.10.1.6' },
  { name: 'c', ofport: 7, mac: '02:00:0a:0a:01:07', ip: '10.10.1.7' },
] as const;
export type BedPodName = (typeof BED_PODS)[number]['name'];
export const podIp = (name: BedPodName): string => BED_PODS.find((p) => p.name === name)!.ip;

/** argv: name. Answers each datagram on 5353 with the name. */
const UDP_SERVER = `
const sock = require('node:dgram').createSocket('udp4');
sock.on('message', (_m, from) => sock.send(process.argv[1] + '\\n', from.port, from.address));
sock.bind(5353);
`;

/** argv: ip port sourcePort; sends one datagram from sourcePort, prints the answer ('' after 5 s). */
const UDP_CLIENT = `
const sock = require('node:dgram').createSocket('udp4');
const [ip, port, sport] = process.argv.slice(1);
sock.bind(Number(sport), () => {
  const timer = setTimeout(() => { console.log(''); sock.close(); }, 5000);
  sock.once('message', (m) => { clearTimeout(timer); console.log(m.toString().trim()); sock.close(); });
  sock.send('q\\n', Number(port), ip);
});
`;

export interface ProxierBed {
  readonly bed: PodBed;
  readonly proxier: Proxier;
  /** The proxier's event handlers (synced already). */
  readonly events: ServiceHandlers;
  /** One TCP connection from a Pod; the answering Pod's name. */
  tcp(from: BedPodName, ip: string, port: number): Promise<string>;
  /** One datagram from a Pod's `sourcePort`; the answering Pod's name, '' when none. */
  udp(from: BedPodName, ip: string, port: number, sourcePort: number): Promise<string>;
  /** The endpoint IPs of every select group on the bridge, group by group. */
  groupEndpoints(): Promise<string[][]>;
  stop(): Promise<void>;
}

const hexIp = (ip: string): string =>
  `0x${ip
    .split('.')
    .reduce((n, o) => n * 256 + Number(o), 0)
    .toString(16)}`;

export async function startProxierBed(
  o: Pick<ProxierOptions, 'nodeZone' | 'staleUdpConntrack'> & {
    services: V1Service[];
    slices: V1EndpointSlice[];
  },
): Promise<ProxierBed> {
  const bed = await startPodBed({
    bridge: BR,
    protocols: ['OpenFlow10', 'OpenFlow15'],
    pods: BED_PODS,
    logger,
  });
  let conn: OfConnection | undefined;
  let proxier: Proxier | undefined;
  const stop = async () => {
    await proxier?.stop();
    await conn?.stop();
    await bed.stop();
  };
  try {
    await bed.addPort('gw0', ['type=internal', `ofport_request=${GW.ofport}`]);
    for (const p of bed.pods.values()) {
      // Off-subnet destinations (ClusterIPs) go to the gateway, as in a Pod.
      await p.netns.exec(['ip', 'neigh', 'replace', GW.ip, 'lladdr', GW.mac, 'dev', 'eth0']);
      await p.netns.exec(['ip', 'route', 'add', 'default', 'via', GW.ip, 'dev', 'eth0']);
      bed.runIn(p, `web-${p.name}`, ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', `SYSTEM:echo ${p.name}`]);
      bed.runIn(p, `udp-${p.name}`, [process.execPath, '-e', UDP_SERVER, p.name]);
    }
    conn = new OfConnection({ socketPath: bed.ovs.bridgeMgmtSocket(BR), logger });
    conn.start();
    await conn.waitConnected(10_000);
    const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
    const flows = new FlowCache(conn, logger);
    await flows.replaceMany([
      ['pipeline', pipelineFlows(ctx)],
      ['gateway', gatewayFlows(ctx, GW)],
      ...BED_PODS.map((p): [string, ReturnType<typeof podFlows>] => [
        `pod/${p.name}`,
        podFlows(ctx, p, GW.mac),
      ]),
    ]);
    let events: ServiceHandlers | undefined;
    proxier = new Proxier({
      nodeName: 'node-a',
      source: {
        async start(h) {
          events = h;
          for (const s of o.services) h.upsertService(s);
          for (const s of o.slices) h.upsertSlice(s);
          h.synced();
        },
        async stop() {},
      },
      flows,
      ctx,
      logger,
      endpointSelection: 'fiveTuple',
      ...(o.nodeZone ? { nodeZone: o.nodeZone } : {}),
      ...(o.staleUdpConntrack ? { staleUdpConntrack: o.staleUdpConntrack } : {}),
    });
    await proxier.start();
    const pod = (name: BedPodName): PodBedPod => bed.pods.get(name)!;
    return {
      bed,
      proxier,
      events: events!,
      stop,
      tcp: async (from, ip, port) =>
        (
          await pod(from).netns.exec(
            ['socat', '-t', '2', '-T', '5', 'STDIO', `TCP:${ip}:${port},connect-timeout=5`],
            {
              input: '',
              timeoutMs: 15_000,
            },
          )
        ).trim(),
      udp: async (from, ip, port, sourcePort) =>
        (
          await pod(from).netns.exec(
            [process.execPath, '-e', UDP_CLIENT, ip, String(port), String(sourcePort)],
            {
              timeoutMs: 15_000,
            },
          )
        ).trim(),
      groupEndpoints: async () => {
        const groups = (await bed.ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]))
          .split('\n')
          .filter((l) => l.includes('type=select'));
        return groups.map((g) => BED_PODS.filter((p) => g.includes(`${hexIp(p.ip)}->`)).map((p) => p.ip));
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
