import type { TraceflowPacket } from '@antrea-ts/apis';
import { AgentError } from '../errors.js';
import { formatIpv4, parseIpv4 } from '../net/ipv4.js';
import { checksum, ipv4Header, pseudoHeader } from '../networkpolicy/reject-packet.js';

/** IP protocol numbers a Traceflow packet can carry. */
export const IPPROTO = Object.freeze({ ICMP: 1, TCP: 6, UDP: 17 });

/** Everything the agent decided about the packet it injects (the spec plus defaults). */
export interface TracePacketSpec {
  readonly tag: number;
  readonly srcMac: string;
  readonly dstMac: string;
  readonly srcIp: string;
  readonly dstIp: string;
  readonly protocol: number;
  readonly ttl: number;
  /** IPv4 flags (3 bits: reserved, DF, MF). */
  readonly ipFlags: number;
  /** Total IP length; the payload is zero-padded up to it. */
  readonly length?: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly tcpFlags: number;
  readonly icmpId: number;
  readonly icmpSequence: number;
}

const ETH_LEN = 14;
const IP_LEN = 20;
const TCP_SYN = 0x02;

/**
 * The packet to inject for a Traceflow, with Antrea's defaults: ICMP echo request unless the spec
 * names TCP (SYN) or UDP, TTL 64. Source ports and the echo id come from `random` so two Traceflows
 * between the same Pods never look like one established connection to conntrack. A destination
 * port the spec leaves out comes from `defaultDstPort` (a Service's port of that protocol), else 0.
 */
export function tracePacketSpec(
  tag: number,
  packet: TraceflowPacket | undefined,
  ends: { srcMac: string; dstMac: string; srcIp: string; dstIp: string },
  random: () => number,
  defaultDstPort?: (protocol: number) => number | undefined,
): TracePacketSpec {
  const th = packet?.transportHeader ?? {};
  let protocol = packet?.ipHeader?.protocol ?? IPPROTO.ICMP;
  if (packet?.ipHeader?.protocol === undefined) {
    if (th.tcp) protocol = IPPROTO.TCP;
    else if (th.udp) protocol = IPPROTO.UDP;
  }
  if (protocol !== IPPROTO.ICMP && protocol !== IPPROTO.TCP && protocol !== IPPROTO.UDP) {
    throw new AgentError('AGENT_TRACEFLOW_INVALID', `IP protocol ${protocol} cannot be traced`);
  }
  const ephemeral = () => 32768 + Math.floor(random() * 28232);
  const l4 = protocol === IPPROTO.TCP ? th.tcp : th.udp;
  return {
    tag,
    ...ends,
    protocol,
    ttl: packet?.ipHeader?.ttl ?? 64,
    ipFlags: packet?.ipHeader?.flags ?? 0,
    ...(packet?.length !== undefined ? { length: packet.length } : {}),
    srcPort: l4?.srcPort || ephemeral(),
    dstPort: l4?.dstPort || (defaultDstPort?.(protocol) ?? 0),
    tcpFlags: th.tcp?.flags ?? TCP_SYN,
    icmpId: th.icmp?.id ?? Math.floor(random() * 0xffff) + 1,
    icmpSequence: th.icmp?.sequence ?? 0,
  };
}

/** An Ethernet frame with the IPv4 packet; DSCP carries the tag (ECN bits zero). */
export function craftTracePacket(s: TracePacketSpec): Buffer {
  const l4 = transportHeader(s);
  const ipTotal = Math.max(IP_LEN + l4.length, s.length ?? 0);
  if (ipTotal > 0xffff) throw new AgentError('AGENT_TRACEFLOW_INVALID', `packet length ${ipTotal} too large`);
  const frame = Buffer.alloc(ETH_LEN + ipTotal);
  macBytes(s.dstMac).copy(frame, 0);
  macBytes(s.srcMac).copy(frame, 6);
  frame.writeUInt16BE(0x0800, 12);
  const ip = frame.subarray(ETH_LEN);
  const [src, dst] = [ipv4Bytes(s.srcIp), ipv4Bytes(s.dstIp)];
  ipv4Header(src, dst, s.protocol, {
    totalLength: ipTotal,
    ttl: s.ttl,
    tos: (s.tag & 0x3f) << 2,
    flags: s.ipFlags,
  }).copy(ip);
  l4.copy(ip, IP_LEN);
  const segment = ip.subarray(IP_LEN);
  // UDP's length covers the padding too (conntrack drops a datagram whose length is wrong).
  if (s.protocol === IPPROTO.UDP) segment.writeUInt16BE(segment.length, 4);
  const sumAt = s.protocol === IPPROTO.ICMP ? 2 : s.protocol === IPPROTO.TCP ? 16 : 6;
  const sum =
    s.protocol === IPPROTO.ICMP
      ? checksum(segment)
      : checksum(Buffer.concat([pseudoHeader(src, dst, s.protocol, segment.length), segment]));
  segment.writeUInt16BE(s.protocol === IPPROTO.UDP && sum === 0 ? 0xffff : sum, sumAt);
  return frame;
}

function transportHeader(s: TracePacketSpec): Buffer {
  if (s.protocol === IPPROTO.ICMP) {
    const h = Buffer.alloc(8);
    h[0] = 8; // echo request
    h.writeUInt16BE(s.icmpId & 0xffff, 4);
    h.writeUInt16BE(s.icmpSequence & 0xffff, 6);
    return h;
  }
  if (s.protocol === IPPROTO.TCP) {
    const h = Buffer.alloc(20);
    h.writeUInt16BE(s.srcPort, 0);
    h.writeUInt16BE(s.dstPort, 2);
    h[12] = 5 << 4;
    h[13] = s.tcpFlags & 0xff;
    h.writeUInt16BE(0xffff, 14);
    return h;
  }
  const h = Buffer.alloc(8);
  h.writeUInt16BE(s.srcPort, 0);
  h.writeUInt16BE(s.dstPort, 2);
  return h;
}

function ipv4Bytes(ip: string): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(parseIpv4(ip));
  return b;
}

function macBytes(mac: string): Buffer {
  const b = Buffer.from(mac.split(':').map((x) => Number.parseInt(x, 16)));
  if (b.length !== 6) throw new AgentError('AGENT_TRACEFLOW_INVALID', `bad MAC ${mac}`);
  return b;
}

/** What the agent reads back from a packet-in's frame. */
export interface TracedPacket {
  readonly tag: number;
  readonly srcIp: string;
  readonly dstIp: string;
  readonly protocol: number;
  readonly ttl: number;
  readonly length: number;
  readonly srcPort?: number;
  readonly dstPort?: number;
  readonly tcpFlags?: number;
  readonly icmpId?: number;
  readonly icmpSequence?: number;
}

/** Parses an Ethernet/IPv4 frame (undefined for anything else, e.g. IPv6 or ARP). */
export function parseTracePacket(frame: Buffer): TracedPacket | undefined {
  if (frame.length < ETH_LEN + IP_LEN || frame.readUInt16BE(12) !== 0x0800) return undefined;
  const ip = frame.subarray(ETH_LEN);
  if (ip[0]! >> 4 !== 4) return undefined;
  const ihl = (ip[0]! & 0xf) * 4;
  const protocol = ip[9]!;
  const l4 = ip.subarray(ihl);
  const base = {
    tag: ip[1]! >> 2,
    srcIp: formatIpv4(ip.readUInt32BE(12)),
    dstIp: formatIpv4(ip.readUInt32BE(16)),
    protocol,
    ttl: ip[8]!,
    length: ip.readUInt16BE(2),
  };
  if ((protocol === IPPROTO.TCP && l4.length >= 14) || (protocol === IPPROTO.UDP && l4.length >= 4)) {
    return {
      ...base,
      srcPort: l4.readUInt16BE(0),
      dstPort: l4.readUInt16BE(2),
      ...(protocol === IPPROTO.TCP ? { tcpFlags: l4[13]! } : {}),
    };
  }
  if (protocol === IPPROTO.ICMP && l4.length >= 8 && (l4[0] === 8 || l4[0] === 0)) {
    return { ...base, icmpId: l4.readUInt16BE(4), icmpSequence: l4.readUInt16BE(6) };
  }
  return base;
}

/** The captured packet of a live-traffic Traceflow, in the CRD's shape. */
export function capturedPacket(p: TracedPacket): TraceflowPacket {
  const out: TraceflowPacket = {
    srcIP: p.srcIp,
    dstIP: p.dstIp,
    length: p.length,
    ipHeader: { protocol: p.protocol, ttl: p.ttl },
  };
  if (p.protocol === IPPROTO.TCP)
    out.transportHeader = {
      tcp: { srcPort: p.srcPort ?? 0, dstPort: p.dstPort ?? 0, flags: p.tcpFlags ?? 0 },
    };
  else if (p.protocol === IPPROTO.UDP)
    out.transportHeader = { udp: { srcPort: p.srcPort ?? 0, dstPort: p.dstPort ?? 0 } };
  else if (p.icmpId !== undefined)
    out.transportHeader = { icmp: { id: p.icmpId, sequence: p.icmpSequence ?? 0 } };
  return out;
}
