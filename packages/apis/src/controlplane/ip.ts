import type { IPAddress, IPNet } from './types.js';

function parseIPv4(s: string): IPAddress | undefined {
  // Hand-rolled: called for every Pod IP, where split + regex per octet showed in profiles.
  const out = new Uint8Array(4);
  let octet = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || value > 255 || octet > 3) return undefined;
      out[octet++] = value;
      digits = 0;
      value = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      value = value * 10 + (c - 48);
      digits++;
    } else return undefined;
  }
  return octet === 4 ? out : undefined;
}

function parseIPv6(s: string): IPAddress | undefined {
  let text = s;
  let tail: IPAddress | undefined;
  // An embedded IPv4 suffix (::ffff:1.2.3.4) fills the last 32 bits.
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tail = parseIPv4(text.slice(lastColon + 1));
    if (!tail) return undefined;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const groups = head.length + rest.length;
  if (halves.length === 1 ? groups !== 8 : groups > 7) return undefined;
  const words = [...head, ...new Array<string>(8 - groups).fill('0'), ...rest];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const w = words[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return undefined;
    const n = Number.parseInt(w, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  }
  if (tail) out.set(tail, 12);
  return out;
}

/** Parses a textual IPv4 or IPv6 address into raw bytes; undefined when it is not an address. */
export function parseIP(s: string): IPAddress | undefined {
  return s.includes(':') ? parseIPv6(s) : parseIPv4(s);
}

/** True for the 16-byte IPv4-mapped form (::ffff:a.b.c.d) that Go's net.ParseIP returns for IPv4. */
export function isIPv4Mapped(ip: IPAddress): boolean {
  if (ip.length !== 16 || ip[10] !== 0xff || ip[11] !== 0xff) return false;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return true;
}

/**
 * Parses an address into the bytes Antrea puts on the wire: Go's net.ParseIP yields the 16-byte
 * IPv4-mapped form for IPv4, and Antrea sends that slice unchanged.
 */
export function parseIPGo(s: string): IPAddress | undefined {
  const ip = parseIP(s);
  if (!ip || ip.length === 16) return ip;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(ip, 12);
  return out;
}

/**
 * Formats raw IP bytes like Go's net.IP.String(): IPv4 and IPv4-mapped IPv6 as a dotted quad,
 * other IPv6 per RFC 5952 (lowercase hex without leading zeros, the longest run of two or more
 * zero groups, the first one on ties, as "::"); "<nil>" when empty, "?" and hex for other lengths.
 */
export function formatIP(ip: IPAddress): string {
  if (ip.length === 4) return ip.join('.');
  if (ip.length !== 16) {
    if (ip.length === 0) return '<nil>';
    let hex = '?';
    for (const b of ip) hex += b.toString(16).padStart(2, '0');
    return hex;
  }
  if (isIPv4Mapped(ip)) return ip.subarray(12).join('.');
  let runStart = -1;
  let runLen = 0;
  for (let i = 0; i < 8; ) {
    if (ip[i * 2] !== 0 || ip[i * 2 + 1] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && ip[j * 2] === 0 && ip[j * 2 + 1] === 0) j++;
    if (j - i > runLen) {
      runStart = i;
      runLen = j - i;
    }
    i = j;
  }
  // "::" never stands for a single zero group.
  if (runLen < 2) runStart = -1;
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === runStart) {
      out += '::';
      i += runLen - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += ((ip[i * 2]! << 8) | ip[i * 2 + 1]!).toString(16);
  }
  return out;
}

/**
 * Parses "addr/prefix" like Antrea's cidrStrToIPNet: the address is kept as written (host bits are
 * not masked) and the prefix must be an integer within the family's width.
 */
export function parseCIDR(cidr: string, opts?: { goBytes?: boolean }): IPNet | undefined {
  const slash = cidr.indexOf('/');
  if (slash < 0 || cidr.indexOf('/', slash + 1) >= 0) return undefined;
  const addr = cidr.slice(0, slash);
  const ip = parseIP(addr);
  const prefixText = cidr.slice(slash + 1);
  if (!ip || !/^\d+$/.test(prefixText)) return undefined;
  const prefixLength = Number(prefixText);
  if (prefixLength > ip.length * 8) return undefined;
  return { ip: opts?.goBytes ? parseIPGo(addr)! : ip, prefixLength };
}

/** True when `inner` lies inside `outer` (same family, longer or equal prefix, same leading bits). */
export function ipNetContains(outerNet: IPNet, innerNet: IPNet): boolean {
  const outer = unmapNet(outerNet);
  const inner = unmapNet(innerNet);
  if (outer.ip.length !== inner.ip.length || inner.prefixLength < outer.prefixLength) return false;
  let bits = outer.prefixLength;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((outer.ip[i]! & mask) !== (inner.ip[i]! & mask)) return false;
  }
  return true;
}

function unmapNet(n: IPNet): IPNet {
  // Antrea pairs the 16-byte mapped form of an IPv4 address with an IPv4 prefix length.
  return isIPv4Mapped(n.ip) ? { ip: n.ip.subarray(12), prefixLength: n.prefixLength } : n;
}
