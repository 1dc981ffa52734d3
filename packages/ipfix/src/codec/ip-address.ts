import { formatIpv6, ipv6ToBigint } from '@antrea-ts/openflow';
import { IpfixError } from '../errors.js';

/** Writes dotted IPv4 text as 4 bytes at `at` (a character loop: this runs for every address of every record). */
export function writeIpv4(buf: Buffer, at: number, text: string): void {
  let octet = 0;
  let digits = 0;
  let i = 0;
  for (let k = 0; k <= text.length; k++) {
    const c = k < text.length ? text.charCodeAt(k) : 46;
    if (c === 46) {
      if (digits === 0 || i > 3) break;
      buf[at + i++] = octet;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) break;
    } else break;
    if (k === text.length && i === 4) return;
  }
  throw new IpfixError('IPFIX_ENCODE', `not an IPv4 address: ${text}`);
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
