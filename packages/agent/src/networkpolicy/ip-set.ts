import type { IPAddress, IPBlock, IPNet } from '@antrea-ts/apis';

/**
 * IPv4 address sets as sorted, merged intervals, turned back into the fewest CIDRs that cover them
 * exactly. Peers arrive as single Pod IPs and ipBlocks with excepts; matching them in OVS costs one
 * flow per CIDR, so adjacent addresses are collapsed and excepts are expanded into the CIDRs that
 * remain (Antrea's ipBlock "diff CIDRs"). IPv6 is not realized by this agent (the lab is IPv4 only).
 */

/** Inclusive interval of IPv4 addresses as unsigned 32-bit numbers. */
export type Interval = readonly [number, number];

/** IPv4 of raw bytes (4 bytes, or the 16-byte ::ffff: mapped form Go sends); undefined for IPv6. */
export function ipv4Of(ip: IPAddress): number | undefined {
  if (ip.length === 4) return ((ip[0]! << 24) | (ip[1]! << 16) | (ip[2]! << 8) | ip[3]!) >>> 0;
  if (ip.length === 16 && ip[10] === 0xff && ip[11] === 0xff && ip.subarray(0, 10).every((b) => b === 0)) {
    return ((ip[12]! << 24) | (ip[13]! << 16) | (ip[14]! << 8) | ip[15]!) >>> 0;
  }
  return undefined;
}

/** The interval of an IPv4 network; undefined for IPv6. */
export function netInterval(net: IPNet): Interval | undefined {
  const base = ipv4Of(net.ip);
  if (base === undefined) return undefined;
  // Antrea sends IPv4 as Go's 16-byte mapped form, but the prefix counts IPv4 bits (0.0.0.0/0
  // arrives as ::ffff:0.0.0.0 with prefix 0).
  const prefix = net.prefixLength;
  if (prefix < 0 || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const start = Math.floor(base / size) * size;
  return [start, start + size - 1];
}

/** Sorts and merges overlapping or adjacent intervals. */
export function mergeIntervals(items: readonly Interval[]): Interval[] {
  const sorted = [...items].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** `from` minus `minus` (both merged). */
export function subtractIntervals(from: readonly Interval[], minus: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  const cut = mergeIntervals(minus);
  for (const [s0, e] of from) {
    let s = s0;
    for (const [cs, ce] of cut) {
      if (ce < s || cs > e) continue;
      if (cs > s) out.push([s, cs - 1]);
      s = ce + 1;
      if (s > e) break;
    }
    if (s <= e) out.push([s, e]);
  }
  return out;
}

/** The interval of one ipBlock with its excepts removed. */
export function ipBlockIntervals(block: IPBlock): Interval[] {
  const whole = netInterval(block.cidr);
  if (!whole) return [];
  const except = (block.except ?? []).map(netInterval).filter((x): x is Interval => x !== undefined);
  return subtractIntervals([whole], except);
}

export function formatIPv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;
}

/** The fewest CIDRs covering exactly the merged intervals, as "a.b.c.d/len" ("/32" kept). */
export function intervalsToCidrs(items: readonly Interval[]): string[] {
  const out: string[] = [];
  for (const [s0, e] of mergeIntervals(items)) {
    let s = s0;
    while (s <= e) {
      // Largest block aligned at s that fits in [s, e].
      let size = s === 0 ? 2 ** 32 : 2 ** Math.min(32, countTrailingZeros(s));
      while (size > e - s + 1) size /= 2;
      out.push(`${formatIPv4(s)}/${32 - Math.log2(size)}`);
      s += size;
    }
  }
  return out;
}

function countTrailingZeros(n: number): number {
  let c = 0;
  let x = n;
  while (x > 0 && x % 2 === 0) {
    x /= 2;
    c++;
  }
  return c;
}

/** True when the set is every IPv4 address (a rule clause that matches anything). */
export function isEverything(items: readonly Interval[]): boolean {
  const m = mergeIntervals(items);
  return m.length === 1 && m[0]![0] === 0 && m[0]![1] === 0xffffffff;
}
