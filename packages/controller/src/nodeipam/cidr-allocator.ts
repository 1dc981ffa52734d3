import { NodeIpamError } from './errors.js';

/** One IP family's cluster CIDR split into fixed-size podCIDRs. */
export interface CidrAllocatorOptions {
  /** e.g. "10.244.0.0/16" or "fd00:10:244::/56". */
  clusterCIDR: string;
  /** Prefix length of each Node's podCIDR, e.g. 24 or 64. */
  nodeMaskSize: number;
}

interface ParsedCidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(p);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const words = (h: string) => (h === '' ? [] : h.split(':'));
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  let v = 0n;
  for (const w of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return undefined;
    v = (v << 16n) | BigInt(`0x${w}`);
  }
  return v;
}

export function parseClusterCidr(cidr: string): ParsedCidr {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  const addr = m?.[1] ?? '';
  const family = addr.includes(':') ? 6 : 4;
  const value = family === 4 ? parseV4(addr) : parseV6(addr);
  const prefix = Number(m?.[2]);
  const bits = family === 4 ? 32 : 128;
  if (value === undefined || !(prefix >= 0 && prefix <= bits)) {
    throw new NodeIpamError('CONTROLLER_NODEIPAM_INVALID_CONFIG', `invalid CIDR ${JSON.stringify(cidr)}`);
  }
  const hostBits = BigInt(bits - prefix);
  // Like kube-controller-manager, host bits of the cluster CIDR are ignored.
  return { family, base: (value >> hostBits) << hostBits, prefix };
}

/** RFC 5952 text, as Go's net.IP.String() prints it (what kube-controller-manager writes). */
export function formatAddress(family: 4 | 6, v: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const words: number[] = [];
  for (let i = 7; i >= 0; i--) words.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero words becomes "::" (the first one on a tie).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  if (best < 0) return hex(words);
  return `${hex(words.slice(0, best))}::${hex(words.slice(best + bestLen))}`;
}

/**
 * Hands out the podCIDRs of one cluster CIDR (kube-controller-manager's range allocator): the
 * lowest free subnet first after a rotating cursor, occupy() for subnets already in Node objects,
 * release() when a Node goes. State is only the set of used subnet indexes, rebuilt from the Nodes
 * at start, so allocations survive controller restarts because they live in the Nodes.
 */
export class CidrAllocator {
  readonly family: 4 | 6;
  readonly clusterCIDR: string;
  readonly nodeMaskSize: number;
  readonly #base: bigint;
  readonly #shift: bigint;
  readonly #total: bigint;
  readonly #used = new Set<bigint>();
  #next = 0n;

  constructor(opts: CidrAllocatorOptions) {
    const c = parseClusterCidr(opts.clusterCIDR);
    const bits = c.family === 4 ? 32 : 128;
    if (!Number.isInteger(opts.nodeMaskSize) || opts.nodeMaskSize < c.prefix || opts.nodeMaskSize > bits) {
      throw new NodeIpamError(
        'CONTROLLER_NODEIPAM_INVALID_CONFIG',
        `node mask size ${opts.nodeMaskSize} does not fit cluster CIDR ${opts.clusterCIDR}`,
      );
    }
    this.family = c.family;
    this.clusterCIDR = `${formatAddress(c.family, c.base)}/${c.prefix}`;
    this.nodeMaskSize = opts.nodeMaskSize;
    this.#base = c.base;
    this.#shift = BigInt(bits - opts.nodeMaskSize);
    this.#total = 1n << BigInt(opts.nodeMaskSize - c.prefix);
  }

  get used(): number {
    return this.#used.size;
  }

  /** Subnet index of `cidr`, or undefined when it is not one of this allocator's podCIDRs. */
  #index(cidr: string): bigint | undefined {
    let c: ParsedCidr;
    try {
      c = parseClusterCidr(cidr);
    } catch {
      return undefined;
    }
    if (c.family !== this.family || c.prefix !== this.nodeMaskSize) return undefined;
    const offset = c.base - this.#base;
    if (offset < 0n) return undefined;
    const idx = offset >> this.#shift;
    return idx < this.#total ? idx : undefined;
  }

  #format(idx: bigint): string {
    return `${formatAddress(this.family, this.#base + (idx << this.#shift))}/${this.nodeMaskSize}`;
  }

  /** True when `cidr` is a podCIDR of this cluster CIDR (same family and size, inside it). */
  owns(cidr: string): boolean {
    return this.#index(cidr) !== undefined;
  }

  /** Marks an existing allocation; false when it is not ours (left alone). Idempotent. */
  occupy(cidr: string): boolean {
    const idx = this.#index(cidr);
    if (idx === undefined) return false;
    this.#used.add(idx);
    return true;
  }

  release(cidr: string): void {
    const idx = this.#index(cidr);
    if (idx !== undefined) this.#used.delete(idx);
  }

  allocate(): string {
    if (BigInt(this.#used.size) >= this.#total) {
      throw new NodeIpamError(
        'CONTROLLER_NODEIPAM_EXHAUSTED',
        `no podCIDR left in ${this.clusterCIDR} (/${this.nodeMaskSize} each, ${this.#total} in all)`,
      );
    }
    for (;;) {
      const idx = this.#next;
      this.#next = (this.#next + 1n) % this.#total;
      if (!this.#used.has(idx)) {
        this.#used.add(idx);
        return this.#format(idx);
      }
    }
  }
}
