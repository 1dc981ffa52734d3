// The capture filter of a PacketCapture, as a tcpdump (libpcap) expression. Antrea compiles the
// same match into BPF itself (pkg/agent/packetcapture/capture/bpf.go) and checks it against what
// tcpdump compiles from such expressions; we hand the expression to tcpdump directly.
//
// Matched: the IP family's EtherType, the protocol when given, the addresses of the direction
// (source -> destination, the reverse, or either), the transport ports (swapped for the reverse
// direction), TCP flag matchers (ORed) and ICMP messages (ORed). Transport fields are read at the
// fixed offsets Antrea reads them at: after the IPv4 header (its IHL), or right after the 40-byte
// IPv6 header (no extension headers).
import {
  ICMP_MESSAGE_TYPES,
  ICMPV6_MESSAGE_TYPES,
  PACKET_CAPTURE_PROTOCOLS,
  type PacketCaptureDirection,
  type PacketCaptureIcmpMessage,
  type PacketCapturePacket,
} from '@antrea-ts/apis';
import { AgentError } from '../errors.js';

export interface CaptureFilterInput {
  readonly packet?: PacketCapturePacket | undefined;
  /** The source's address (its Pod's or spec.source.ip); none: any. */
  readonly srcIp?: string | undefined;
  readonly dstIp?: string | undefined;
  /** Default SourceToDestination. */
  readonly direction?: PacketCaptureDirection | undefined;
}

const invalid = (message: string) => new AgentError('AGENT_PACKETCAPTURE_INVALID', message);

/** spec.packet.protocol as a number: an integer, or a name Antrea knows (case-insensitive). */
export function captureProtocol(protocol: number | string | undefined): number | undefined {
  if (protocol === undefined) return undefined;
  if (typeof protocol === 'number') {
    if (!Number.isInteger(protocol) || protocol < 0 || protocol > 255)
      throw invalid(`invalid protocol number ${protocol}: must be between 0 and 255`);
    return protocol;
  }
  const n = PACKET_CAPTURE_PROTOCOLS[protocol.toUpperCase()];
  if (n === undefined) {
    throw invalid(
      `invalid protocol string ${JSON.stringify(protocol)}, supported values are: ${Object.keys(PACKET_CAPTURE_PROTOCOLS).join(', ')} (case insensitive)`,
    );
  }
  return n;
}

function icmpType(
  m: PacketCaptureIcmpMessage,
  names: Readonly<Record<string, number>>,
  what: string,
): number {
  if (typeof m.type === 'number') {
    if (!Number.isInteger(m.type) || m.type < 0 || m.type > 255)
      throw invalid(`invalid ${what} type integer: ${m.type}; must be between 0 and 255`);
    return m.type;
  }
  const n = names[m.type.toLowerCase()];
  if (n === undefined) {
    throw invalid(
      `invalid ${what} type string: ${JSON.stringify(m.type)}; supported values are: ${Object.keys(names).join(', ')} (case insensitive)`,
    );
  }
  return n;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const anyOf = (terms: string[]) =>
  terms.length === 1 ? terms[0]! : `(${terms.map((t) => `(${t})`).join(' or ')})`;

interface Transport {
  srcPort?: number | undefined;
  dstPort?: number | undefined;
  /** ORed terms that do not depend on the direction (flags, ICMP messages). */
  extra?: string | undefined;
}

function transportOf(packet: PacketCapturePacket | undefined, v6: boolean): Transport {
  const h = packet?.transportHeader;
  if (!h) return {};
  const ports = h.tcp ?? h.udp;
  const t: Transport = { srcPort: ports?.srcPort, dstPort: ports?.dstPort };
  // libpcap's tcp[] / icmp6[] do not reach past an IPv6 header: read ip6[] at Antrea's offsets.
  const tcpFlags = v6 ? 'ip6[53]' : 'tcp[13]';
  const flags = h.tcp?.flags ?? [];
  if (flags.length > 0) {
    t.extra = anyOf(flags.map((f) => `${tcpFlags} & ${hex(f.mask ?? f.value)} == ${hex(f.value)}`));
  }
  const icmp = v6 ? h.icmpv6 : h.icmp;
  const messages = icmp?.messages ?? [];
  if (messages.length > 0) {
    const [type, code] = v6 ? ['ip6[40]', 'ip6[41]'] : ['icmp[0]', 'icmp[1]'];
    const names = v6 ? ICMPV6_MESSAGE_TYPES : ICMP_MESSAGE_TYPES;
    t.extra = anyOf(
      messages.map((m) => {
        const typeTerm = `${type} == ${icmpType(m, names, v6 ? 'ICMPv6' : 'ICMP')}`;
        return m.code === undefined ? typeTerm : `${typeTerm} and ${code} == ${m.code}`;
      }),
    );
  }
  if (!v6 && h.icmpv6?.messages?.length) throw invalid('icmpv6 messages need packet.ipFamily IPv6');
  if (v6 && h.icmp?.messages?.length) throw invalid('icmp messages need packet.ipFamily IPv4 (use icmpv6)');
  return t;
}

/** One direction: addresses, then ports, then the direction-free terms. */
function oneWay(src: string | undefined, dst: string | undefined, t: Transport): string[] {
  const terms: string[] = [];
  if (src) terms.push(`src host ${src}`);
  if (dst) terms.push(`dst host ${dst}`);
  if (t.srcPort !== undefined) terms.push(`src port ${t.srcPort}`);
  if (t.dstPort !== undefined) terms.push(`dst port ${t.dstPort}`);
  if (t.extra) terms.push(t.extra);
  return terms;
}

const reverse = (t: Transport): Transport => ({ ...t, srcPort: t.dstPort, dstPort: t.srcPort });

/** The tcpdump expression for a PacketCapture; throws AGENT_PACKETCAPTURE_INVALID for a spec it cannot express. */
export function buildCaptureFilter(input: CaptureFilterInput): string {
  const v6 = input.packet?.ipFamily === 'IPv6';
  for (const ip of [input.srcIp, input.dstIp]) {
    if (ip !== undefined && ip.includes(':') !== v6)
      throw invalid(`address ${ip} is not an ${v6 ? 'IPv6' : 'IPv4'} address (packet.ipFamily)`);
  }
  const proto = captureProtocol(input.packet?.protocol);
  const t = transportOf(input.packet, v6);
  const family = v6 ? 'ip6' : 'ip';
  const terms = [proto === undefined ? family : `${family} proto ${proto}`];
  const direction = input.direction ?? 'SourceToDestination';
  if (direction === 'SourceToDestination') terms.push(...oneWay(input.srcIp, input.dstIp, t));
  else if (direction === 'DestinationToSource') terms.push(...oneWay(input.dstIp, input.srcIp, reverse(t)));
  else {
    const forward = oneWay(input.srcIp, input.dstIp, t);
    const back = oneWay(input.dstIp, input.srcIp, reverse(t));
    // Nothing direction-dependent: both halves are the same.
    if (forward.join() === back.join()) terms.push(...forward);
    else terms.push(`((${forward.join(' and ')}) or (${back.join(' and ')}))`);
  }
  return terms.join(' and ');
}
