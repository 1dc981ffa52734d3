import { DEFAULT_TRACEFLOW_TIMEOUT, type Traceflow, type TraceflowStatus } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import { TagAllocator } from './tag-allocator.js';

/** Traceflow CRs as the controller sees and writes them; the real one is kube-traceflow-store.ts. */
export interface TraceflowStore {
  start(handlers: { changed(tf: Traceflow): void; removed(tf: Traceflow): void }): Promise<void>;
  list(): Traceflow[];
  get(name: string): Traceflow | undefined;
  /** Replaces the status of the object as read (its resourceVersion guards agents' results). */
  updateStatus(tf: Traceflow, status: TraceflowStatus): Promise<void>;
  stop(): Promise<void>;
}

export interface TraceflowControllerOptions {
  readonly store: TraceflowStore;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** How often Running Traceflows are checked for their timeout (Antrea: 10 s). */
  readonly timeoutCheckMs?: number;
}

export const TRACEFLOW_TIMEOUT_REASON = 'Traceflow timeout';
const DEFAULT_TIMEOUT_CHECK_MS = 10_000;

/**
 * The controller half of Traceflow (Antrea pkg/controller/traceflow): a new Traceflow gets a free
 * dataplane tag and phase Running with its start time; agents append their Nodes' results to the
 * status; the controller declares it Succeeded once the results hold the sender's SpoofGuard
 * observation and an end of the path (Delivered, Dropped, Rejected, ForwardedOutOfNetwork), or
 * any result of a dropped-only live Traceflow, and Failed when spec.timeout (default 20 s) passes
 * first. The tag is released with either phase or when the Traceflow is deleted.
 */
export class TraceflowController {
  private readonly log: Logger;
  private readonly clock: Clock;
  readonly tags = new TagAllocator();
  private readonly pending = new Set<string>();
  private working: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(private readonly o: TraceflowControllerOptions) {
    this.log = o.logger.child({ component: 'traceflow-controller' });
    this.clock = o.clock ?? systemClock;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.o.store.start({
      changed: (tf) => this.enqueue(tf.metadata.name ?? ''),
      removed: (tf) => this.tags.release(tf.metadata.name ?? ''),
    });
    // Tags of Traceflows that were running before a restart stay theirs.
    for (const tf of this.o.store.list()) {
      const name = tf.metadata.name ?? '';
      if (tf.status?.phase === 'Running' && !this.tags.occupy(name, tf.status.dataplaneTag ?? 0))
        this.log.warn(
          { traceflow: name, tag: tf.status.dataplaneTag },
          'Running Traceflow has an invalid or taken tag',
        );
    }
    this.resyncAll();
    this.timer = setInterval(() => this.resyncAll(), this.o.timeoutCheckMs ?? DEFAULT_TIMEOUT_CHECK_MS);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    await this.o.store.stop();
    await this.idle();
  }

  /** Settles when no sync is queued or running (tests). */
  async idle(): Promise<void> {
    while (this.working) await this.working;
  }

  /** Queues every unfinished Traceflow: timeouts, and new ones that found no free tag before. */
  private resyncAll(): void {
    for (const tf of this.o.store.list()) {
      const phase = tf.status?.phase;
      if (phase !== 'Succeeded' && phase !== 'Failed') this.enqueue(tf.metadata.name ?? '');
    }
  }

  private enqueue(name: string): void {
    this.pending.add(name);
    if (!this.working) this.working = this.drain().finally(() => (this.working = undefined));
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const [name] = this.pending;
      this.pending.delete(name as string);
      const tf = this.o.store.get(name as string);
      if (!tf) continue;
      try {
        await this.sync(tf);
      } catch (err) {
        // A conflict means an agent wrote meanwhile: the resulting event queues the name again.
        this.log.debug({ err, traceflow: name }, 'Traceflow status update failed');
      }
    }
  }

  private async sync(tf: Traceflow): Promise<void> {
    const name = tf.metadata.name ?? '';
    switch (tf.status?.phase) {
      case undefined:
        return this.begin(tf, name);
      case 'Running':
        return this.check(tf, name);
      default:
        this.tags.release(name);
    }
  }

  private async begin(tf: Traceflow, name: string): Promise<void> {
    const tag = this.tags.allocate(name);
    if (tag === undefined) {
      this.log.warn({ traceflow: name }, 'all dataplane tags are taken; the Traceflow waits for one');
      return;
    }
    try {
      await this.o.store.updateStatus(tf, {
        ...tf.status,
        phase: 'Running',
        dataplaneTag: tag,
        startTime:
          tf.status?.startTime ??
          this.clock
            .now()
            .toISOString()
            .replace(/\.\d+Z$/, 'Z'),
      });
      this.log.info({ traceflow: name, tag }, 'Traceflow running');
    } catch (err) {
      this.tags.release(name);
      throw err;
    }
  }

  private async check(tf: Traceflow, name: string): Promise<void> {
    this.tags.occupy(name, tf.status?.dataplaneTag ?? 0);
    if (isComplete(tf)) {
      await this.finish(tf, name, 'Succeeded');
      return;
    }
    const started = Date.parse(String(tf.status?.startTime ?? tf.metadata.creationTimestamp ?? ''));
    const timeoutMs = (tf.spec.timeout || DEFAULT_TRACEFLOW_TIMEOUT) * 1000;
    if (Number.isFinite(started) && this.clock.now().getTime() > started + timeoutMs)
      await this.finish(tf, name, 'Failed', TRACEFLOW_TIMEOUT_REASON);
  }

  private async finish(tf: Traceflow, name: string, phase: 'Succeeded' | 'Failed', reason?: string) {
    await this.o.store.updateStatus(tf, {
      ...tf.status,
      phase,
      dataplaneTag: 0,
      ...(reason ? { reason } : {}),
    });
    this.tags.release(name);
    this.log.info({ traceflow: name, phase, reason }, 'Traceflow finished');
  }
}

const END_ACTIONS = new Set(['Delivered', 'Dropped', 'Rejected', 'ForwardedOutOfNetwork']);

/** Antrea's checkTraceflowStatus: the results tell the whole path. */
export function isComplete(tf: Traceflow): boolean {
  const results = tf.status?.results ?? [];
  if (tf.spec.liveTraffic && tf.spec.droppedOnly) return results.length > 0;
  let sender = false;
  let receiver = false;
  for (const r of results) {
    for (const ob of r.observations ?? []) {
      if (ob.component === 'SpoofGuard') sender = true;
      if (ob.action && END_ACTIONS.has(ob.action)) receiver = true;
    }
  }
  return (sender && receiver) || (receiver && !tf.spec.source?.pod);
}
