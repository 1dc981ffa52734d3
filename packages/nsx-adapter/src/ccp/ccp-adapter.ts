import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Backoff, type Clock, systemClock } from '../clock.js';
import { AdapterError, NsxRequestError } from '../errors.js';
import type { ComponentCondition, ComponentHealth } from '../health.js';
import type { ManagedCrdStore } from '../k8s/types.js';
import type { CcpChannel, RealizationReport } from '../nsx/channels.js';
import { RealizationTracker } from './realization.js';
import { type ReconcileResult, reconcile } from './reconciler.js';
import { type DesiredState, translateFeed } from './translate/feed.js';

export interface CcpAdapterOptions {
  channel: CcpChannel;
  store: ManagedCrdStore;
  logger: Logger;
  clock?: Clock;
  /** Long-poll window on the policy feed (ms). */
  longPollMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** RealizeTimeoutSeconds of the real adapter, in ms (default 60 s). */
  realizeTimeoutMs?: number;
  /** Coalesces bursts of watch events into one reconcile pass (ms). */
  debounceMs?: number;
  /** Parallel kube-apiserver writes per reconcile phase. */
  concurrency?: number;
}

/**
 * The CCP adapter: NSX policy feed -> translation -> managed CRDs, plus realization reports.
 *
 * Stateless by design (research notes §2.6, seeds): on every start and every reconnect to NSX it
 * reads the whole feed and reconciles every managed object, creating, updating and deleting as
 * needed. Between feeds, watch events on managed objects trigger a reconcile against the last
 * desired state, so kubectl edits and deletions of managed objects are reverted. When NSX is
 * unreachable nothing is deleted: the last desired state (if any) keeps being enforced, the feed is
 * retried with exponential backoff and health turns DEGRADED.
 */
export class CcpAdapter {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly tracker = new RealizationTracker();
  private readonly backoff: Backoff;
  private readonly k8sBackoff: Backoff;
  private desired: DesiredState | undefined;
  private applyErrors = new Map<string, string>();
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private connected = false;
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private nsxCondition: ComponentCondition;
  private k8sCondition: ComponentCondition;
  private lastResultValue: ReconcileResult | undefined;
  private syncWaiters: (() => void)[] = [];
  /** Content hash of the last translated feed, for sources without generations (polling). */
  private feedHash: string | undefined;

  constructor(private readonly opts: CcpAdapterOptions) {
    this.log = opts.logger.child({ component: 'ccp-adapter' });
    this.clock = opts.clock ?? systemClock;
    this.backoff = new Backoff(opts.backoffInitialMs ?? 500, opts.backoffMaxMs ?? 30_000);
    this.k8sBackoff = new Backoff(opts.backoffInitialMs ?? 500, opts.backoffMaxMs ?? 30_000);
    const now = this.clock.now();
    this.nsxCondition = {
      type: 'NSXConnectionUp',
      status: 'UNKNOWN',
      reason: 'Starting',
      last_transition_time: now,
    };
    this.k8sCondition = {
      type: 'KubernetesSyncUp',
      status: 'UNKNOWN',
      reason: 'Starting',
      last_transition_time: now,
    };
  }

  /** Starts watching managed objects and the NSX feed; returns once the watches have listed. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.abort) return;
    this.abort = new AbortController();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.opts.store.start(() => this.requestSync(), this.abort.signal);
    this.loop = this.run(this.abort.signal);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort?.abort();
      clearTimeout(this.debounce);
      clearTimeout(this.retryTimer);
      await this.loop;
      await this.syncing;
      await this.opts.store.stop();
      for (const w of this.syncWaiters.splice(0)) w();
      this.log.info('CCP adapter stopped');
    })();
    return this.stopping;
  }

  health(): ComponentHealth {
    const conditions = [this.nsxCondition, this.k8sCondition];
    const bad = conditions.some((c) => c.status === 'FALSE');
    const unknown = conditions.some((c) => c.status === 'UNKNOWN');
    return {
      status: bad ? 'DEGRADED' : unknown ? 'UNKNOWN' : 'UP',
      conditions: conditions.map((c) => ({ ...c })),
    };
  }

  /** Result of the last reconcile pass (tests, debugging). */
  get lastResult(): ReconcileResult | undefined {
    return this.lastResultValue;
  }

  /** Resolves after the next reconcile pass completes (tests, benchmarks). */
  nextSync(): Promise<void> {
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  private setCondition(which: 'nsx' | 'k8s', ok: boolean, reason: string, message?: string): void {
    const prev = which === 'nsx' ? this.nsxCondition : this.k8sCondition;
    const status = ok ? 'TRUE' : 'FALSE';
    const next: ComponentCondition = {
      type: prev.type,
      status,
      reason,
      ...(message ? { message } : {}),
      last_transition_time:
        prev.status === status ? (prev.last_transition_time ?? this.clock.now()) : this.clock.now(),
    };
    if (which === 'nsx') this.nsxCondition = next;
    else this.k8sCondition = next;
  }

  private async run(signal: AbortSignal): Promise<void> {
    let generation: number | undefined;
    while (!signal.aborted) {
      try {
        const feed = await this.opts.channel.getFeed(
          generation === undefined
            ? { signal }
            : { afterGeneration: generation, timeoutMs: this.opts.longPollMs ?? 30_000, signal },
        );
        if (signal.aborted) break;
        if (!this.connected) {
          this.connected = true;
          this.tracker.reset();
          // A reconnect is a full resync even when a polled feed looks unchanged.
          this.feedHash = undefined;
          this.log.info({ generation: feed.policy_generation }, 'NSX policy feed connected; full resync');
        }
        this.backoff.reset();
        this.setCondition('nsx', true, 'Connected');
        const hash =
          feed.policy_generation === undefined
            ? createHash('sha256')
                .update(JSON.stringify([feed.security_policies, feed.groups, feed.services]))
                .digest('hex')
            : undefined;
        const changed =
          feed.policy_generation === undefined
            ? hash !== this.feedHash || this.desired === undefined
            : generation === undefined || feed.policy_generation !== generation;
        this.feedHash = hash;
        if (changed) {
          this.desired = translateFeed(feed);
          const failed = this.desired.outcomes.filter((o) => o.errors.length > 0).length;
          this.log.info(
            {
              generation: feed.policy_generation,
              policies: this.desired.policies.length,
              groups: this.desired.clusterGroups.length,
              failed,
            },
            'NSX policies translated',
          );
          this.requestSync(true);
        } else {
          // No change within the long poll: a good moment to re-evaluate realization timeouts.
          void this.report();
        }
        // A source without generations cannot long-poll: poll at the long-poll period instead.
        if (feed.policy_generation === undefined)
          await this.clock.sleep(this.opts.longPollMs ?? 30_000, signal);
        generation = feed.policy_generation;
      } catch (err) {
        if (signal.aborted) break;
        // Warn once per outage (and at a start without NSX); the retries log at debug.
        const firstFailure = this.nsxCondition.status !== 'FALSE';
        this.connected = false;
        generation = undefined;
        const delay = this.backoff.next();
        const message = err instanceof Error ? err.message : String(err);
        this.setCondition('nsx', false, AdapterError.is(err) ? err.code : 'Error', message);
        this.log[firstFailure ? 'warn' : 'debug'](
          { err: message, retryInMs: delay },
          'NSX policy feed unavailable; keeping existing policies',
        );
        await this.clock.sleep(delay, signal);
      }
    }
  }

  /** Schedules a reconcile pass; bursts of calls within the debounce window make one pass. */
  private requestSync(now = false): void {
    this.dirty = true;
    if (this.abort?.signal.aborted) return;
    if (now) {
      clearTimeout(this.debounce);
      this.debounce = undefined;
      this.kick();
      return;
    }
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.kick();
    }, this.opts.debounceMs ?? 50);
  }

  private kick(): void {
    if (this.syncing) return;
    this.syncing = (async () => {
      while (this.dirty && !this.abort?.signal.aborted) {
        this.dirty = false;
        await this.syncOnce();
        for (const w of this.syncWaiters.splice(0)) w();
      }
    })().finally(() => {
      this.syncing = undefined;
      if (this.dirty) this.requestSync();
    });
  }

  private async syncOnce(): Promise<void> {
    const desired = this.desired;
    // Never act without a desired state from NSX: after a restart with NSX down, keep everything.
    if (!desired) return;
    let result: ReconcileResult;
    try {
      result = await reconcile(desired, this.opts.store, this.opts.concurrency ?? 16);
    } catch (err) {
      result = { created: 0, updated: 0, deleted: 0, failures: [{ kind: 'Tier', name: '', error: err }] };
    }
    this.lastResultValue = result;
    if (result.created + result.updated + result.deleted > 0) {
      this.log.info(
        {
          created: result.created,
          updated: result.updated,
          deleted: result.deleted,
          failed: result.failures.length,
        },
        'managed CRDs reconciled',
      );
    }
    this.applyErrors = new Map(
      result.failures
        .filter((f) => f.kind === 'ClusterNetworkPolicy')
        .map((f) => [f.name, f.error instanceof Error ? f.error.message : String(f.error)]),
    );
    if (result.failures.length > 0) {
      const first = result.failures[0];
      const message = `${result.failures.length} object(s) failed, first ${first?.kind} ${first?.name}: ${first?.error instanceof Error ? first.error.message : String(first?.error)}`;
      this.setCondition('k8s', false, 'ApplyFailed', message);
      const delay = this.k8sBackoff.next();
      this.log.warn({ err: message, retryInMs: delay }, 'reconcile incomplete; retrying');
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.requestSync(true), delay);
    } else {
      this.k8sBackoff.reset();
      this.setCondition('k8s', true, 'Synced');
    }
    await this.report();
  }

  private async report(): Promise<void> {
    const desired = this.desired;
    if (!desired || !this.connected) return;
    const changes = this.tracker.changes(
      desired.outcomes,
      (name) => this.opts.store.get('ClusterNetworkPolicy', name),
      this.applyErrors,
      this.clock.now(),
      this.opts.realizeTimeoutMs ?? 60_000,
    );
    if (changes.length === 0) return;
    try {
      await this.send(changes);
    } catch (err) {
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'realization report failed; will resend',
      );
    }
  }

  private async send(reports: RealizationReport[]): Promise<void> {
    try {
      await this.opts.channel.reportRealization(reports);
      this.tracker.delivered(reports);
    } catch (err) {
      // NSX refuses a whole batch when one policy vanished meanwhile: fall back to one at a time.
      if (!(err instanceof NsxRequestError) || err.status !== 400 || reports.length === 1) throw err;
      for (const r of reports) {
        try {
          await this.opts.channel.reportRealization([r]);
          this.tracker.delivered([r]);
        } catch (e) {
          if (!(e instanceof NsxRequestError) || e.status !== 400) throw e;
        }
      }
    }
  }
}
