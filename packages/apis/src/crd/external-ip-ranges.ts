import type { ExternalIPPool, IPRange } from './egress.js';

// IPv4 ranges of an ExternalIPPool as inclusive [first, last] integers, for the controller (allocation,
// webhooks) and the agent (which pool addresses on its transport interface are its own). IPv6
// pools are refused (not implemented here), so every address fits a JS number exactly.

export interface Ipv4Range {
  readonly first: number;
  readonly last: number;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The address as an unsigned 32-bit integer, or undefined when it is not dotted-quad IPv4. */
export function ipv4ToNumber(ip: string): number | undefined {
  const m = IPV4.exec(ip);
  if (!m) return undefined;
  let n = 0;
  for (const part of m.slice(1)) {
    const octet = Number(part);
    if (octet > 255 || (part.length > 1 && part.startsWith('0'))) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

export function numberToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/**
 * One spec range as numbers, or the reason it is unusable. A CIDR block larger than /31 leaves out
 * its network and broadcast addresses, as Antrea's CIDR allocator does.
 */
export function parseRange(r: IPRange): Ipv4Range | string {
  if (r.cidr !== undefined) {
    const [addr = '', lenText = ''] = r.cidr.split('/');
    const base = ipv4ToNumber(addr);
    const len = Number(lenText);
    if (base === undefined || !/^\d{1,2}$/.test(lenText) || len > 32) return `invalid cidr ${r.cidr}`;
    const size = 2 ** (32 - len);
    const network = base - (base % size);
    if (network !== base) return `invalid cidr ${r.cidr}: host bits set`;
    return size > 2
      ? { first: network + 1, last: network + size - 2 }
      : { first: network, last: network + size - 1 };
  }
  const first = ipv4ToNumber(r.start ?? '');
  const last = ipv4ToNumber(r.end ?? '');
  if (first === undefined || last === undefined) return `invalid IP range ${r.start}-${r.end}: not IPv4`;
  if (first > last) return `invalid IP range ${r.start}-${r.end}: start after end`;
  return { first, last };
}

/** Every range of a pool, or the first reason one of them is unusable. */
export function poolRanges(pool: ExternalIPPool): Ipv4Range[] | string {
  const out: Ipv4Range[] = [];
  for (const r of pool.spec.ipRanges ?? []) {
    const parsed = parseRange(r);
    if (typeof parsed === 'string') return parsed;
    out.push(parsed);
  }
  return out;
}

export function rangesSize(ranges: readonly Ipv4Range[]): number {
  return ranges.reduce((n, r) => n + r.last - r.first + 1, 0);
}

export function rangesContain(ranges: readonly Ipv4Range[], ip: number): boolean {
  return ranges.some((r) => ip >= r.first && ip <= r.last);
}

export function rangesOverlap(a: readonly Ipv4Range[], b: readonly Ipv4Range[]): boolean {
  return a.some((x) => b.some((y) => x.first <= y.last && y.first <= x.last));
}
