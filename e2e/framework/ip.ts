// Just enough IP arithmetic for rewriting case CIDRs: parse, contain, smallest covering prefix.
// Addresses are bigints so IPv4 and IPv6 share one code path.
import { isIPv4, isIPv6 } from 'node:net';

export interface Addr {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr {
  family: 4 | 6;
  /** Network address (host bits cleared). */
  base: bigint;
  prefix: number;
}

const bits = (f: 4 | 6) => (f === 4 ? 32 : 128);

export function parseIP(s: string): Addr | undefined {
  if (isIPv4(s)) {
    const v = s.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
    return { family: 4, value: v };
  }
  if (!isIPv6(s)) return undefined;
  let text = s;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const a = parseIP(v4[1]!)!.value;
    text = `${text.slice(0, -v4[1]!.length)}${(a >> 16n).toString(16)}:${(a & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n) };
}

export function formatIP(a: Addr): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((a.value >> BigInt(i * 16)) & 0xffffn).toString(16));
  // Longest run of zero groups (length >= 2) becomes "::", as RFC 5952 says.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

function mask(f: 4 | 6, prefix: number): bigint {
  const total = bits(f);
  return ((1n << BigInt(total)) - 1n) ^ ((1n << BigInt(total - prefix)) - 1n);
}

/** Parses "a.b.c.d/n" or "x::y/n"; undefined for anything else. Host bits are cleared. */
export function parseCidr(s: string): Cidr | undefined {
  const i = s.indexOf('/');
  if (i < 0) return undefined;
  const a = parseIP(s.slice(0, i));
  const p = s.slice(i + 1);
  if (!a || !/^\d{1,3}$/.test(p)) return undefined;
  const prefix = Number(p);
  if (prefix > bits(a.family)) return undefined;
  return { family: a.family, base: a.value & mask(a.family, prefix), prefix };
}

export function formatCidr(c: Cidr): string {
  return `${formatIP({ family: c.family, value: c.base })}/${c.prefix}`;
}

export function cidrContains(c: Cidr, a: Addr): boolean {
  return c.family === a.family && (a.value & mask(c.family, c.prefix)) === c.base;
}

/** The smallest CIDR holding every address (all of one family, at least one). */
export function coveringCidr(addrs: readonly Addr[]): Cidr {
  const f = addrs[0]!.family;
  let prefix = bits(f);
  const first = addrs[0]!.value;
  for (const a of addrs) {
    while (prefix > 0 && (a.value & mask(f, prefix)) !== (first & mask(f, prefix))) prefix--;
  }
  return { family: f, base: first & mask(f, prefix), prefix };
}
