import { normalizeName, type ResolvedAddress } from './dns-message.js';
import { type FqdnSelector, fqdnSelector } from './fqdn-selector.js';

export interface FqdnCacheOptions {
  /** Milliseconds since the epoch (injected in tests). */
  readonly now?: () => number;
  /**
   * An address is kept at least this long (Antrea's `fqdnCacheMinTTL`, default 0: the record's
   * TTL alone), for applications that cache answers longer than their TTL.
   */
  readonly minTtlSeconds?: number;
}

/**
 * Which addresses the FQDNs that policies select resolved to, and until when (Antrea's dnsEntryCache).
 * Only names that some selector of a realized rule matches are kept. An address stays until the
 * latest expiry any answer gave it (answer time + max(TTL, minimum TTL)); an answer that no longer
 * lists an address does not remove it before that. Addresses shared by several names stay while
 * any of those names keeps them.
 */
export class FqdnCache {
  private readonly now: () => number;
  private readonly minTtlMs: number;
  private selectors = new Map<string, FqdnSelector>();
  /** name -> address -> expiry (ms). */
  private readonly names = new Map<string, Map<string, number>>();
  private additions = 0;

  constructor(options: FqdnCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.minTtlMs = (options.minTtlSeconds ?? 0) * 1000;
  }

  /**
   * The patterns of every realized FQDN peer. Names no pattern matches any more are forgotten;
   * returns the exact names that were not selected before (the agent resolves those itself).
   */
  setSelectors(patterns: Iterable<string>): string[] {
    const next = new Map<string, FqdnSelector>();
    for (const p of patterns) {
      const key = normalizeName(p);
      next.set(key, this.selectors.get(key) ?? fqdnSelector(p));
    }
    const added = [...next.entries()]
      .filter(([key, s]) => s.exactName !== undefined && !this.selectors.has(key))
      .map(([, s]) => s.exactName!);
    this.selectors = next;
    for (const name of [...this.names.keys()]) if (!this.selected(name)) this.names.delete(name);
    return added;
  }

  /** The exact names selected now. */
  exactNames(): string[] {
    return [...this.selectors.values()].flatMap((s) => (s.exactName === undefined ? [] : [s.exactName]));
  }

  /** Records the answers of one response; true when a selected name gained an address. */
  learn(byName: ReadonlyMap<string, readonly ResolvedAddress[]>): boolean {
    const now = this.now();
    let added = false;
    for (const [rawName, addresses] of byName) {
      const name = normalizeName(rawName);
      if (!this.selected(name)) continue;
      let known = this.names.get(name);
      if (!known) {
        known = new Map();
        this.names.set(name, known);
      }
      for (const { ip, ttl } of addresses) {
        const expiry = now + Math.max(ttl * 1000, this.minTtlMs);
        const before = known.get(ip);
        if (before === undefined || before <= now) added = true;
        known.set(ip, Math.max(before ?? 0, expiry));
      }
    }
    if (added) this.additions++;
    return added;
  }

  /** Drops the addresses whose time is up; true when any went. */
  expire(): boolean {
    const now = this.now();
    let removed = false;
    for (const [name, known] of this.names) {
      for (const [ip, expiry] of known) {
        if (expiry <= now) {
          known.delete(ip);
          removed = true;
        }
      }
      if (known.size === 0) this.names.delete(name);
    }
    return removed;
  }

  /** When the next address expires (ms since the epoch), if any is cached. */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const known of this.names.values()) {
      for (const expiry of known.values()) if (next === undefined || expiry < next) next = expiry;
    }
    return next;
  }

  /** When the first address of one name expires, if it has any. */
  nameExpiry(name: string): number | undefined {
    const known = this.names.get(normalizeName(name));
    return known && known.size > 0 ? Math.min(...known.values()) : undefined;
  }

  /** The unexpired addresses of every cached name that one of `patterns` matches, sorted. */
  addresses(patterns: readonly string[]): string[] {
    const now = this.now();
    const selectors = patterns.map((p) => this.selectors.get(normalizeName(p)) ?? fqdnSelector(p));
    const out = new Set<string>();
    for (const [name, known] of this.names) {
      if (!selectors.some((s) => s.matches(name))) continue;
      for (const [ip, expiry] of known) if (expiry > now) out.add(ip);
    }
    return [...out].sort();
  }

  /** Cached names and their addresses (agent API, logs). */
  entries(): { name: string; addresses: { ip: string; expiresAt: number }[] }[] {
    return [...this.names]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, known]) => ({
        name,
        addresses: [...known].map(([ip, expiresAt]) => ({ ip, expiresAt })),
      }));
  }

  /** Goes up each time learn() adds an address: flows computed from an older version may lack it. */
  get version(): number {
    return this.additions;
  }

  get size(): number {
    return this.names.size;
  }

  private selected(name: string): boolean {
    for (const s of this.selectors.values()) if (s.matches(name)) return true;
    return false;
  }
}
