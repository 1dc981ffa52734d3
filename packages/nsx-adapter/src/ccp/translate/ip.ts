import { isIP } from 'node:net';

/** Parses an IPv4/IPv6 address into a BigInt; returns undefined when it is not one. */
function toBig(addr: string): { value: bigint; bits: 32 | 128 } | undefined {
  const fam = isIP(addr);
  if (fam === 4) {
    const v = addr.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
    return { value: v, bits: 32 };
  }
  if (fam === 6) {
    let text = addr;
    // An embedded IPv4 tail ("::ffff:1.2.3.4") becomes two hextets.
    const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    if (v4?.[1]) {
      const n = toBig(v4[1])?.value ?? 0n;
      text = `${text.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
    }
    const [head = '', tail] = text.split('::');
    const h = head === '' ? [] : head.split(':');
    const t = tail === undefined || tail === '' ? [] : tail.split(':');
    const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0');
    const v = [...h, ...fill, ...t].reduce((acc, x) => (acc << 16n) | BigInt(Number.parseInt(x, 16)), 0n);
    return { value: v, bits: 128 };
  }
  return undefined;
}

function fromBig(value: bigint, bits: 32 | 128): string {
  if (bits === 32) {
    return [24n, 16n, 8n, 0n].map((s) => ((value >> s) & 0xffn).toString()).join('.');
  }
  const parts: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) parts.push(((value >> s) & 0xffffn).toString(16));
  // Compress the longest run of zero hextets, as Go's net.IP.String() does.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (parts[i] !== '0') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && parts[j] === '0') j += 1;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return parts.join(':');
  return `${parts.slice(0, best).join(':')}::${parts.slice(best + bestLen).join(':')}`;
}

/**
 * Turns an NSX IP entry (address, CIDR or "a-b" range) into CIDRs for Antrea ipBlocks. A single
 * address becomes a host CIDR (/32 or /128); a range becomes the smallest list of CIDRs covering
 * exactly that range; a CIDR keeps its prefix with host bits cleared (Antrea rejects set host
 * bits). Returns undefined for anything else.
 */
export function ipEntryToCidrs(entry: string): string[] | undefined {
  const range = entry.split('-');
  if (range.length === 2) {
    const a = toBig(range[0]?.trim() ?? '');
    const b = toBig(range[1]?.trim() ?? '');
    if (!a || !b || a.bits !== b.bits || a.value > b.value) return undefined;
    return rangeToCidrs(a.value, b.value, a.bits);
  }
  const [addr = '', prefix, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const ip = toBig(addr);
  if (!ip) return undefined;
  if (prefix === undefined) return [`${fromBig(ip.value, ip.bits)}/${ip.bits}`];
  if (!/^\d{1,3}$/.test(prefix)) return undefined;
  const len = Number(prefix);
  if (len > ip.bits) return undefined;
  const hostBits = BigInt(ip.bits - len);
  const net = (ip.value >> hostBits) << hostBits;
  return [`${fromBig(net, ip.bits)}/${len}`];
}

function rangeToCidrs(start: bigint, end: bigint, bits: 32 | 128): string[] {
  const out: string[] = [];
  let cur = start;
  while (cur <= end) {
    // Largest block aligned at `cur` that does not pass `end`.
    let size = 0n;
    while (size < BigInt(bits)) {
      const next = size + 1n;
      const aligned = (cur & ((1n << next) - 1n)) === 0n;
      if (!aligned || cur + (1n << next) - 1n > end) break;
      size = next;
    }
    out.push(`${fromBig(cur, bits)}/${bits - Number(size)}`);
    cur += 1n << size;
  }
  return out;
}
