/**
 * The DNS message inside an intercepted Ethernet frame (IPv4; UDP, or TCP with the 2-byte length
 * prefix of RFC 1035 section 4.2.2). Pure; returns undefined for anything that does not carry a
 * whole DNS message, so the caller delivers it untouched.
 */

const ETH_HEADER = 14;
const ETH_IPV4 = 0x0800;
const ETH_VLAN = 0x8100;
const PROTO_TCP = 6;
const PROTO_UDP = 17;

export function dnsPayloadOf(frame: Uint8Array): Uint8Array | undefined {
  if (frame.length < ETH_HEADER) return undefined;
  let etherType = (frame[12]! << 8) | frame[13]!;
  let at = ETH_HEADER;
  if (etherType === ETH_VLAN) {
    if (frame.length < ETH_HEADER + 4) return undefined;
    etherType = (frame[16]! << 8) | frame[17]!;
    at += 4;
  }
  if (etherType !== ETH_IPV4 || frame.length < at + 20) return undefined;
  const ihl = (frame[at]! & 0x0f) * 4;
  const total = (frame[at + 2]! << 8) | frame[at + 3]!;
  // A fragment other than the first has no L4 header; a first fragment has only part of the message.
  const fragment = ((frame[at + 6]! << 8) | frame[at + 7]!) & 0x3fff;
  if (ihl < 20 || fragment !== 0) return undefined;
  const ipEnd = Math.min(frame.length, at + total);
  const l4 = at + ihl;
  const proto = frame[at + 9];
  if (proto === PROTO_UDP) {
    if (ipEnd < l4 + 8) return undefined;
    return frame.subarray(l4 + 8, ipEnd);
  }
  if (proto === PROTO_TCP) {
    if (ipEnd < l4 + 20) return undefined;
    const data = l4 + (frame[l4 + 12]! >> 4) * 4;
    if (ipEnd < data + 2) return undefined;
    const length = (frame[data]! << 8) | frame[data + 1]!;
    // Only a segment that holds the whole message (the usual case for short answers).
    if (data + 2 + length > ipEnd) return undefined;
    return frame.subarray(data + 2, data + 2 + length);
  }
  return undefined;
}
