// `antctl packetcapture` (Antrea's pkg/antctl/raw/packetcapture, same flags): builds a PacketCapture
// from the flags, creates it through the Kubernetes API and, unless --nowait, polls it until the
// capturing agent reports it Complete. Antrea then copies the file out of the agent Pod and deletes
// the CR; antctl here cannot reach into agent Pods, so it prints where the file is and keeps the
// CR (deleting it removes the file on the Node).
import { isIP } from 'node:net';
import {
  CRD_KINDS,
  ICMP_MESSAGE_TYPES,
  ICMPV6_MESSAGE_TYPES,
  type PacketCapture,
  type PacketCapturePacket,
  type PacketCapturePeer,
  type PacketCaptureSpec,
} from '@antrea-ts/apis';
import type { Command } from 'commander';
import { send } from '../client/connections.js';
import { type AntctlDeps, type RunContext, runContext } from '../context.js';
import { AntctlError } from '../errors.js';
import { kubeJson } from './common.js';

const PATH = `/apis/${CRD_KINDS.PacketCapture.apiVersion}/${CRD_KINDS.PacketCapture.plural}`;
const DEFAULT_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 300;
const POLL_MS = 1_000;
const PROTOCOLS: Readonly<Record<string, number>> = { icmp: 1, tcp: 6, udp: 17, icmpv6: 58 };
const TCP_FLAGS: Readonly<Record<string, number>> = {
  fin: 1,
  syn: 2,
  rst: 4,
  psh: 8,
  ack: 16,
  urg: 32,
  ece: 64,
  cwr: 128,
};

export interface PacketCaptureOptions {
  source?: string;
  destination?: string;
  number?: string;
  flow?: string;
  capturePoint?: string;
  direction?: string;
  nowait?: boolean;
}

const usage = (message: string) => new AntctlError('ANTCTL_USAGE', message);

/** The flow's fields (`tcp,tcp_dst=80`), values kept as text (bare words: ''). */
function flowFields(flow: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const v of flow.replaceAll(' ', '').split(',')) {
    const kv = v.split('=');
    if (kv.length === 1) {
      if (v !== '') fields.set(v, '');
    } else if (kv.length === 2 && kv[0] !== '' && kv[1] !== '') fields.set(kv[0] as string, kv[1] as string);
    else throw usage(`${v} is not valid in flow`);
  }
  return fields;
}

function uint(text: string, bits: number, field: string): number {
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < 0 || n >= 2 ** bits)
    throw usage(`invalid ${field} "${text}": an integer between 0 and ${2 ** bits - 1}`);
  return n;
}

/** `+syn-ack`: flags that must be set (+) and clear (-), as one value/mask matcher. */
export function tcpFlagsMatcher(text: string): { value: number; mask: number } {
  let value = 0;
  let mask = 0;
  for (const m of text.matchAll(/([+-])([a-z]*)|(.)/g)) {
    if (m[3] !== undefined) throw usage(`invalid character '${m[3]}' in tcp_flags, expected '+' or '-'`);
    const bit = TCP_FLAGS[m[2] as string];
    if (bit === undefined)
      throw usage(m[2] ? `invalid TCP flag ${m[2]}` : `missing TCP flag after '${m[1]}'`);
    mask |= bit;
    if (m[1] === '+') value |= bit;
  }
  return { value, mask };
}

function icmpMessage(
  fields: Map<string, string>,
  prefix: 'icmp' | 'icmpv6',
  names: Readonly<Record<string, number>>,
) {
  const type = fields.get(`${prefix}_type`);
  const code = fields.get(`${prefix}_code`);
  if (type === undefined) {
    if (code !== undefined) throw usage(`${prefix}_type must be specified when ${prefix}_code is provided`);
    return undefined;
  }
  let t: number | string;
  if (/^\d+$/.test(type)) t = uint(type, 8, `${prefix}_type`);
  else if (names[type] !== undefined) t = type;
  else throw usage(`unknown ${prefix}_type: ${type}`);
  return {
    messages: [code === undefined ? { type: t } : { type: t, code: uint(code, 8, `${prefix}_code`) }],
  };
}

/** Antrea's parseFlow: family, protocol, ports, TCP flags, ICMP/ICMPv6 message. */
export function packetFromCaptureFlow(flow: string): PacketCapturePacket {
  const fields = flowFields(flow);
  const packet: PacketCapturePacket = {
    ipFamily: fields.has('ipv6') || fields.has('icmpv6') ? 'IPv6' : 'IPv4',
  };
  const proto = Object.entries(PROTOCOLS).find(([word]) => fields.has(word));
  if (proto) packet.protocol = proto[1];
  const th: NonNullable<PacketCapturePacket['transportHeader']> = {};
  const tcp: NonNullable<typeof th.tcp> = {};
  if (fields.has('tcp_src')) tcp.srcPort = uint(fields.get('tcp_src') ?? '', 16, 'tcp_src');
  if (fields.has('tcp_dst')) tcp.dstPort = uint(fields.get('tcp_dst') ?? '', 16, 'tcp_dst');
  if (fields.has('tcp_flags')) tcp.flags = [tcpFlagsMatcher(fields.get('tcp_flags') ?? '')];
  if (Object.keys(tcp).length > 0) th.tcp = tcp;
  const udp: NonNullable<typeof th.udp> = {};
  if (fields.has('udp_src')) udp.srcPort = uint(fields.get('udp_src') ?? '', 16, 'udp_src');
  if (fields.has('udp_dst')) udp.dstPort = uint(fields.get('udp_dst') ?? '', 16, 'udp_dst');
  if (Object.keys(udp).length > 0) th.udp = udp;
  const icmp = icmpMessage(fields, 'icmp', ICMP_MESSAGE_TYPES);
  if (icmp) th.icmp = icmp;
  const icmpv6 = icmpMessage(fields, 'icmpv6', ICMPV6_MESSAGE_TYPES);
  if (icmpv6) th.icmpv6 = icmpv6;
  if (Object.keys(th).length > 0) packet.transportHeader = th;
  return packet;
}

/** `ns/pod`, `pod` (Namespace default) or an IP address. */
function peer(v: string): PacketCapturePeer {
  if (isIP(v)) return { ip: v };
  const parts = v.split('/');
  if (parts.length === 1 && v !== '') return { pod: { namespace: 'default', name: v } };
  if (parts.length === 2 && parts[0] && parts[1]) return { pod: { namespace: parts[0], name: parts[1] } };
  throw usage(`${v} is neither Namespace/Pod, Pod nor an IP address`);
}

/** The PacketCapture the flags describe; named after its ends (plus a random suffix unless --nowait). */
export function buildPacketCapture(
  o: PacketCaptureOptions,
  timeoutS: number,
  randomSuffix: () => string,
): PacketCapture {
  if (!o.source && !o.destination) throw usage('Please provide source (-S) and/or destination (-D)');
  const number = Number(o.number ?? '1');
  if (!Number.isInteger(number) || number <= 0) throw usage('packet number should be larger than 0');
  if (timeoutS > MAX_TIMEOUT_S) throw usage(`timeout cannot be longer than ${MAX_TIMEOUT_S}s`);
  const spec: PacketCaptureSpec = { captureConfig: { firstN: { number } }, timeout: timeoutS };
  if (o.source) spec.source = peer(o.source);
  if (o.destination) spec.destination = peer(o.destination);
  if (!spec.source?.pod && !spec.destination?.pod) throw usage('one of source and destination must be a Pod');
  if (o.capturePoint) {
    if (o.capturePoint !== 'Source' && o.capturePoint !== 'Destination')
      throw usage('capture point must be Source or Destination');
    spec.capturePoint = o.capturePoint;
  }
  if (o.direction) {
    if (!['SourceToDestination', 'DestinationToSource', 'Both'].includes(o.direction))
      throw usage('direction must be SourceToDestination, DestinationToSource or Both');
    spec.direction = o.direction as PacketCaptureSpec['direction'] & string;
  }
  if (o.flow) spec.packet = packetFromCaptureFlow(o.flow);
  const prefix = [o.source, o.destination]
    .filter((s): s is string => !!s)
    .map((s) => s.replaceAll('/', '-'))
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-');
  return {
    apiVersion: 'crd.antrea.io/v1alpha1',
    kind: 'PacketCapture',
    metadata: { name: o.nowait ? prefix : `${prefix}-${randomSuffix()}` },
    spec,
  };
}

async function runPacketCapture(ctx: RunContext, o: PacketCaptureOptions): Promise<void> {
  const timeoutS = ctx.globals.timeout ? Math.ceil(ctx.globals.timeout / 1000) : DEFAULT_TIMEOUT_S;
  const pc = buildPacketCapture(o, timeoutS, () => ctx.deps.randomSuffix(8));
  const name = pc.metadata.name ?? '';
  const kube = await ctx.conn.kube();
  try {
    await send(
      kube,
      { method: 'POST', path: PATH, body: pc },
      { route: { kind: 'kube' }, target: kube.target, subject: 'packetcaptures' },
    );
  } catch (err) {
    throw new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `error when creating PacketCapture, is PacketCapture feature gate enabled? ${(err as Error).message}`,
      { cause: err, ...(AntctlError.is(err) && err.status !== undefined ? { status: err.status } : {}) },
    );
  }
  ctx.out(`PacketCapture Name: ${name}\n`);
  if (o.nowait) return;
  // Antrea waits the capture's timeout plus 5 s.
  const deadline = ctx.deps.now().getTime() + (timeoutS + 5) * 1000;
  for (;;) {
    await ctx.deps.sleep(POLL_MS);
    const now = await kubeJson<PacketCapture>(
      ctx,
      { path: `${PATH}/${name}` },
      `packetcapture "${name}"`,
      name,
    );
    const complete = now.status?.conditions?.find(
      (c) => c.type === 'PacketCaptureComplete' && c.status === 'True',
    );
    if (complete) {
      if (complete.reason === 'Failed' || complete.reason === 'Timeout')
        throw new AntctlError(
          'ANTCTL_SERVER_ERROR',
          `PacketCapture ${name}: ${complete.reason}: ${complete.message ?? ''}`,
        );
      ctx.out(`Captured packets: ${now.status?.numberCaptured ?? 0}\n`);
      ctx.out(`Captured packets file: ${now.status?.filePath ?? ''}\n`);
      ctx.out(`The file goes with the PacketCapture: "kubectl delete packetcapture ${name}" removes both.\n`);
      return;
    }
    if (ctx.deps.now().getTime() >= deadline)
      throw new AntctlError('ANTCTL_TIMEOUT', 'timeout while waiting for PacketCapture to complete');
  }
}

export function addPacketCaptureCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('packetcapture')
    .aliases(['pc', 'packetcaptures'])
    .summary('Start capture packets')
    .description(
      'Start capturing packets on the target flow (timeout: -t/--timeout, default 60s, at most 300s).',
    )
    .option('-S, --source <source>', 'source of the PacketCapture: Namespace/Pod, Pod, or IP')
    .option('-D, --destination <destination>', 'destination of the PacketCapture: Namespace/Pod, Pod, or IP')
    .option(
      '-n, --number <number>',
      'target number of packets to capture, the capture will stop when it is reached',
      '1',
    )
    .option(
      '-f, --flow <flow>',
      'specify the flow (packet headers) of the PacketCapture, including tcp_src, tcp_dst, tcp_flags, udp_src, udp_dst, icmp_type, icmp_code',
    )
    .option(
      '-p, --capture-point <point>',
      'specify where the packet capture should be performed: Source or Destination',
    )
    .option(
      '-d, --direction <direction>',
      'direction of the traffic to capture: SourceToDestination, DestinationToSource, or Both',
      'SourceToDestination',
    )
    .option('--nowait', 'if set, command returns without retrieving results')
    .addHelpText(
      'after',
      `
Examples:
  Start capturing packets from pod1 to pod2, both Pods are in Namespace default
  $ antctl packetcapture -S pod1 -D pod2
  Start capturing TCP SYNs that are not ACKs from pod1 to pod2, with destination port 80
  $ antctl packetcapture -S pod1 -D pod2 -f tcp,tcp_dst=80,tcp_flags=+syn-ack
  Start capturing ICMP destination unreachable (host unreachable) packets from pod1 to pod2
  $ antctl packetcapture -S pod1 -D pod2 -f icmp,icmp_type=icmp-unreach,icmp_code=1
  Start capturing packets in both directions between pod1 and pod2, 5 of them
  $ antctl packetcapture -S pod1 -D pod2 -d Both -n 5`,
    )
    .action(async (opts: PacketCaptureOptions, cmd: Command) => {
      await runPacketCapture(runContext(deps, cmd), opts);
    });
}
