import type { Logger } from 'pino';
import { addressesByName, parseDnsMessage, type ResolvedAddress } from './dns-message.js';
import { dnsPayloadOf } from './dns-packet.js';
import type { FqdnCache } from './fqdn-cache.js';

/** How long a DNS response waits for its rules to be realized before it is dropped (Antrea: 2 s). */
export const RULE_REALIZATION_TIMEOUT_MS = 2_000;
/** Retry delays of the agent's own failed queries (Antrea's policy workqueue: 5 s doubling to 300 s). */
const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 300_000;
/** Re-query an exact name that resolved to nothing this often. */
const EMPTY_REQUERY_MS = 60_000;
/** The longest delay a Node timer holds; a longer one fires at once (TTLs go up to 2^31-1 s). */
const MAX_TIMER_MS = 0x7fffffff;

/** A timer for `ms` (clamped to what a timer can hold) that does not keep the process alive. */
function timer(ms: number, fn: () => void): NodeJS.Timeout {
  const t = setTimeout(fn, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
  t.unref();
  return t;
}

export interface FqdnControllerOptions {
  readonly cache: FqdnCache;
  /**
   * Realizes the policies again; resolves true once the flows reflect the cache (false: failed).
   * `withinMs`: the caller gives up after that long (the realization may still happen later).
   */
  readonly realize: (withinMs?: number) => Promise<boolean>;
  /**
   * Whether the flows reflect the cache: the last realization succeeded and saw every address
   * learned so far. When not (a failure, or addresses learned while no realization could run),
   * every answer waits for a new realization.
   */
  readonly upToDate?: () => boolean;
  readonly logger: Logger;
  /** The agent's own lookup of an exact name (A records with TTLs); none: only intercepted answers. */
  readonly resolve?: (name: string) => Promise<ResolvedAddress[]>;
  readonly now?: () => number;
  readonly realizeTimeoutMs?: number;
}

/**
 * FQDN peers (Antrea pkg/agent/controller/networkpolicy/fqdn.go): DNS responses to Pods with FQDN
 * rules are paused in OVS and handed here; the answers go into the cache and, when a selected
 * name gained an address, the policies are realized again before the response continues to the
 * Pod, so the Pod's first connection after its lookup is already allowed. Addresses are dropped
 * (and the policies realized again) when their TTL runs out. Exact names are also resolved by the
 * agent itself when a resolver is given, so rules work before any Pod asks.
 */
export class FqdnController {
  private readonly log: Logger;
  private readonly now: () => number;
  private expiryTimer: NodeJS.Timeout | undefined;
  private expiryAt: number | undefined;
  private readonly queries = new Map<string, { timer: NodeJS.Timeout; failures: number }>();
  private stopped = false;
  /** Intercepted responses: delivered, dropped (rules not realized in time), unparsable (delivered). */
  readonly counts = { delivered: 0, dropped: 0, unparsable: 0 };

  constructor(private readonly options: FqdnControllerOptions) {
    this.log = options.logger.child({ component: 'fqdn' });
    this.now = options.now ?? Date.now;
  }

  stop(): void {
    this.stopped = true;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    for (const q of this.queries.values()) clearTimeout(q.timer);
    this.queries.clear();
  }

  /**
   * The FQDN patterns of the rules being realized now (called by each realization, before the
   * peers are computed). New exact names are looked up; names no rule selects are forgotten.
   */
  setSelectors(patterns: Iterable<string>): void {
    const added = this.options.cache.setSelectors(patterns);
    if (this.options.resolve && !this.stopped) {
      const exact = new Set(this.options.cache.exactNames());
      for (const [name, q] of this.queries) {
        if (!exact.has(name)) {
          clearTimeout(q.timer);
          this.queries.delete(name);
        }
      }
      for (const name of added) this.scheduleQuery(name, 0, 0);
    }
    this.scheduleExpiry();
  }

  /**
   * One intercepted DNS response (an Ethernet frame). Resolves true when it may go on to the Pod:
   * always, unless the rules its answers changed could not be realized in time (as Antrea, the
   * Pod then retries rather than connecting before its rule allows it).
   */
  async onDnsResponse(frame: Uint8Array): Promise<boolean> {
    const payload = dnsPayloadOf(frame);
    let byName: Map<string, ResolvedAddress[]>;
    try {
      if (!payload) throw new Error('no DNS message in the packet');
      byName = addressesByName(parseDnsMessage(payload));
    } catch (err) {
      // Not ours to judge: the Pod's resolver gets the packet as it came.
      this.counts.unparsable++;
      this.log.debug({ err }, 'intercepted DNS response not parsed; delivering it unchanged');
      return true;
    }
    const learned = this.options.cache.learn(byName);
    // As Antrea, an answer also waits when the flows lag behind the cache (the last realization
    // failed, or the one for an earlier answer has not happened): its addresses may be among those
    // the switch does not have yet.
    if (!learned && this.options.upToDate?.() !== false) {
      this.counts.delivered++;
      return true;
    }
    this.log.debug({ names: [...byName.keys()], learned }, 'DNS response: realizing rules before it goes on');
    this.scheduleExpiry();
    const ok = await this.realizeWithin(this.options.realizeTimeoutMs ?? RULE_REALIZATION_TIMEOUT_MS);
    if (ok) this.counts.delivered++;
    else {
      this.counts.dropped++;
      this.log.warn(
        { names: [...byName.keys()] },
        'rules not realized in time for a DNS response; dropping it',
      );
    }
    return ok;
  }

  private realizeWithin(ms: number): Promise<boolean> {
    // realize() is told the deadline first, so its own timer (same delay) fires before this guard.
    const realized = this.options.realize(ms);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      realized.then(
        (ok) => {
          clearTimeout(timer);
          resolve(ok);
        },
        () => {
          clearTimeout(timer);
          resolve(false);
        },
      );
    });
  }

  /** One timer for the earliest expiry: expired addresses go and the rules are realized again. */
  private scheduleExpiry(): void {
    if (this.stopped) return;
    const next = this.options.cache.nextExpiry();
    if (next === this.expiryAt) return;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.expiryAt = next;
    if (next === undefined) return;
    this.expiryTimer = timer(next - this.now(), () => {
      this.expiryTimer = undefined;
      this.expiryAt = undefined;
      // A clamped timer can fire before anything is due: expire() then removes nothing.
      if (this.options.cache.expire()) {
        this.log.debug('FQDN addresses expired; realizing rules');
        void this.options.realize();
      }
      this.scheduleExpiry();
    });
  }

  private scheduleQuery(name: string, delayMs: number, failures: number): void {
    const previous = this.queries.get(name);
    if (previous) clearTimeout(previous.timer);
    this.queries.set(name, { timer: timer(delayMs, () => void this.query(name, failures)), failures });
  }

  private async query(name: string, failures: number): Promise<void> {
    const resolve = this.options.resolve;
    if (!resolve || this.stopped) return;
    try {
      const addresses = await resolve(name);
      if (this.stopped || !this.queries.has(name)) return;
      if (this.options.cache.learn(new Map([[name, addresses]]))) {
        this.log.debug({ name, addresses: addresses.length }, 'FQDN resolved by the agent; realizing rules');
        this.scheduleExpiry();
        void this.options.realize();
      }
      // Ask again when the first address expires (a lookup then refreshes or replaces it).
      const expiry = this.options.cache.nameExpiry(name);
      this.scheduleQuery(name, expiry === undefined ? EMPTY_REQUERY_MS : expiry - this.now(), 0);
    } catch (err) {
      if (this.stopped || !this.queries.has(name)) return;
      const delay = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** failures);
      this.log.info({ err, name, retryInMs: delay }, 'resolving an FQDN failed; retrying');
      this.scheduleQuery(name, delay, failures + 1);
    }
  }
}
