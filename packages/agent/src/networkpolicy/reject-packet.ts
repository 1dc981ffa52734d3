/**
 * The reply a Reject rule sends instead of silently dropping (Antrea pkg/agent/controller/
 * networkpolicy/reject.go): a TCP RST for TCP, an ICMP destination unreachable "administratively
 * prohibited" (type 3, code 10) for everything else, as if the destination answered. Pure functions
 * over Ethernet frames (IPv4 only).
 */

const ETH_IPV4 = 0x0800;
const PROTO_ICMP = 1;
const PROTO_TCP = 6;
const ICMP_UNREACHABLE = 3;
export const ICMP_ADMIN_PROHIBITED = 10;

/** Internet checksum (RFC 1071) over `data`, starting from a partial sum. */
export function checksum(data: Uint8Array, initial = 0): number {
  let sum = initial;
  for (let i = 0; i + 1 < data.length; i += 2) sum += (data[i]! << 8) | data[i + 1]!;
  if (data.length % 2 === 1) sum += data[data.length - 1]! << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** Fields of an IPv4 header (no options) beyond its addresses and protocol. */
export interface Ipv4HeaderOptions {
  /** Total IP length: header plus payload. */
  readonly totalLength: number;
  readonly ttl?: number;
  /** The TOS byte (DSCP << 2 | ECN). */
  readonly tos?: number;
  /** The 3 flag bits (reserved, DF, MF); default DF. */
  readonly flags?: number;
}

/** A 20-byte IPv4 header with its checksum; `src` and `dst` are 4-byte addresses. */
export function ipv4Header(src: Uint8Array, dst: Uint8Array, proto: number, o: Ipv4HeaderOptions): Buffer {
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h[1] = o.tos ?? 0;
  h.writeUInt16BE(o.totalLength, 2);
  h.writeUInt16BE(((o.flags ?? 0b010) & 0x7) << 13, 6);
  h[8] = o.ttl ?? 64;
  h[9] = proto;
  h.set(src, 12);
  h.set(dst, 16);
  h.writeUInt16BE(checksum(h), 10);
  return h;
}

/** The TCP/UDP checksum pseudo-header (RFC 793, RFC 768). */
export function pseudoHeader(src: Uint8Array, dst: Uint8Array, proto: number, length: number): Buffer {
  const b = Buffer.alloc(12);
  b.set(src, 0);
  b.set(dst, 4);
  b[9] = proto;
  b.writeUInt16BE(length, 10);
  return b;
}

/** The reply to one rejected frame, or undefined when it is not IPv4 (or is itself an ICMP error / RST). */
export function rejectReply(frame: Buffer): Buffer | undefined {
  if (frame.length < 14 + 20 || frame.readUInt16BE(12) !== ETH_IPV4) return undefined;
  const ip = frame.subarray(14);
  const ihl = (ip[0]! & 0x0f) * 4;
  if (ihl < 20 || ip.length < ihl) return undefined;
  const totalLen = Math.min(ip.readUInt16BE(2), ip.length);
  const proto = ip[9]!;
  const srcIp = Buffer.from(ip.subarray(12, 16));
  const dstIp = Buffer.from(ip.subarray(16, 20));
  const eth = Buffer.alloc(14);
  frame.copy(eth, 0, 6, 12); // destination = the original source MAC
  frame.copy(eth, 6, 0, 6); // source = the original destination MAC
  eth.writeUInt16BE(ETH_IPV4, 12);
  let l4: Buffer;
  if (proto === PROTO_TCP) {
    const tcp = ip.subarray(ihl, totalLen);
    if (tcp.length < 20) return undefined;
    const flags = tcp[13]!;
    if (flags & 0x04) return undefined; // never answer a RST
    const dataOff = (tcp[12]! >> 4) * 4;
    const payload = Math.max(0, tcp.length - dataOff);
    l4 = Buffer.alloc(20);
    l4.writeUInt16BE(tcp.readUInt16BE(2), 0);
    l4.writeUInt16BE(tcp.readUInt16BE(0), 2);
    const ackSet = (flags & 0x10) !== 0;
    l4.writeUInt32BE(ackSet ? tcp.readUInt32BE(8) : 0, 4);
    const seqSpan = payload + (flags & 0x02 ? 1 : 0) + (flags & 0x01 ? 1 : 0);
    l4.writeUInt32BE((tcp.readUInt32BE(4) + seqSpan) >>> 0, 8);
    l4[12] = 5 << 4;
    l4[13] = 0x14; // RST + ACK
    const pseudo = pseudoHeader(dstIp, srcIp, PROTO_TCP, 20);
    l4.writeUInt16BE(checksum(Buffer.concat([pseudo, l4])), 16);
  } else {
    if (proto === PROTO_ICMP && ip.length > ihl && [3, 4, 5, 11, 12].includes(ip[ihl]!)) return undefined;
    // The original IP header and the first 8 bytes of its payload (RFC 792).
    const quoted = ip.subarray(0, Math.min(totalLen, ihl + 8));
    l4 = Buffer.alloc(8 + quoted.length);
    l4[0] = ICMP_UNREACHABLE;
    l4[1] = ICMP_ADMIN_PROHIBITED;
    Buffer.from(quoted).copy(l4, 8);
    l4.writeUInt16BE(checksum(l4), 2);
  }
  const proto2 = proto === PROTO_TCP ? PROTO_TCP : PROTO_ICMP;
  return Buffer.concat([eth, ipv4Header(dstIp, srcIp, proto2, { totalLength: 20 + l4.length }), l4]);
}
