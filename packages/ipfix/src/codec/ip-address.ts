import { formatIpv6, ipv6ToBigint } from '@antrea-ts/openflow';
import { IpfixError } from '../errors.js';

/** Writes dotted IPv4 text as 4 bytes at `at`. */
export function writeIpv4(buf: Buffer, at: number, text: string): void {
  const parts = text.split('.');
  if (parts.length !== 4) throw new IpfixError('IPFIX_ENCODE', `not an IPv4 address: ${text}`);
  for (let i = 0; i < 4; i++) {
    const n = Number(parts[i]);
    if (!Number.isInteger(n) || n < 0 || n > 255 || parts[i] === '') {
      throw new IpfixError('IPFIX_ENCODE', `not an IPv4 address: ${text}`);
    }
    buf[at + i] = n;
  }
}

export const readIpv4 = (buf: Buffer, at: number): string =>
  `${buf[at]}.${buf[at + 1]}.${buf[at + 2]}.${buf[at + 3]}`;

/** Writes IPv6 text as 16 bytes at `at` (the text forms @antrea-ts/openflow parses). */
export function writeIpv6(buf: Buffer, at: number, text: string): void {
  let v: bigint;
  try {
    v = ipv6ToBigint(text);
  } catch (err) {
    throw new IpfixError('IPFIX_ENCODE', `not an IPv6 address: ${text}`, { cause: err });
  }
  buf.writeBigUInt64BE(v >> 64n, at);
  buf.writeBigUInt64BE(v & 0xffff_ffff_ffff_ffffn, at + 8);
}

/** RFC 5952 text. */
export const readIpv6 = (buf: Buffer, at: number): string =>
  formatIpv6((buf.readBigUInt64BE(at) << 64n) | buf.readBigUInt64BE(at + 8));
