import type { Clock } from '../clock.js';

/** Where a watch writes: an http ServerResponse satisfies it. */
export interface FrameTarget {
  write(chunk: Uint8Array): boolean;
  once(event: 'drain', listener: () => void): unknown;
  end(): unknown;
  destroy(): unknown;
  cork?(): void;
  uncork?(): void;
}

export type WatchCloseReason =
  /** The client went away. */
  | 'client'
  /** timeoutSeconds (or the server's default) elapsed; the client re-watches. */
  | 'timeout'
  /** The queue went over its limit or the socket stopped draining: dropped to bound memory. */
  | 'slow'
  /** The handler or the server ended the watch (shutdown). */
  | 'server';

export interface WatchStreamLimits {
  /** Frames queued beyond what the socket accepted. Default 1000 (Antrea's watcherChanSize). */
  maxQueuedFrames: number;
  /** Bytes queued beyond what the socket accepted. Default 16 MiB. */
  maxQueuedBytes: number;
  /** A socket that has not drained for this long is dropped even if no new event arrives. */
  stallTimeoutMs: number;
}

export const DEFAULT_WATCH_LIMITS: WatchStreamLimits = {
  maxQueuedFrames: 1000,
  maxQueuedBytes: 16 * 1024 * 1024,
  stallTimeoutMs: 60_000,
};

export interface WatchStreamObserver {
  sent?(bytes: number): void;
  closed?(reason: WatchCloseReason): void;
}

/**
 * One watcher's outbound queue of pre-encoded frames. Frames go straight to the socket while it
 * accepts them; while it is backed up they wait here, within limits. A watcher that cannot keep up
 * is disconnected (the client re-lists, as an Antrea agent does on every reconnect) rather than
 * letting the server hold an unbounded backlog for it.
 */
export class WatchStream {
  readonly #target: FrameTarget;
  readonly #limits: WatchStreamLimits;
  readonly #clock: Clock;
  readonly #observer: WatchStreamObserver;
  readonly #abort = new AbortController();
  #queue: Uint8Array[] = [];
  #head = 0;
  #queuedBytes = 0;
  /** Since when the socket has refused more data (undefined while it drains). */
  #blockedSince: number | undefined;
  #lastSendAt: number;
  #closeReason: WatchCloseReason | undefined;
  #deadline: number | undefined;
  #corked = false;

  constructor(
    target: FrameTarget,
    options: {
      clock: Clock;
      limits?: Partial<WatchStreamLimits>;
      observer?: WatchStreamObserver;
      timeoutMs?: number;
    },
  ) {
    this.#target = target;
    this.#clock = options.clock;
    this.#limits = { ...DEFAULT_WATCH_LIMITS, ...options.limits };
    this.#observer = options.observer ?? {};
    this.#lastSendAt = this.#clock.now();
    if (options.timeoutMs !== undefined) this.#deadline = this.#lastSendAt + options.timeoutMs;
  }

  /** Aborted when the stream closes, whatever the reason. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get closed(): boolean {
    return this.#closeReason !== undefined;
  }

  get closeReason(): WatchCloseReason | undefined {
    return this.#closeReason;
  }

  get queuedFrames(): number {
    return this.#queue.length - this.#head;
  }

  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** When something was last handed to the socket (heartbeats are due after a quiet period). */
  get lastSendAt(): number {
    return this.#lastSendAt;
  }

  /** Queues one frame; false once the stream is closed (including when this frame closed it). */
  send(frame: Uint8Array): boolean {
    if (this.#closeReason) return false;
    if (this.#blockedSince === undefined && this.queuedFrames === 0) {
      this.#write(frame);
      return true;
    }
    this.#queue.push(frame);
    this.#queuedBytes += frame.length;
    if (this.queuedFrames > this.#limits.maxQueuedFrames || this.#queuedBytes > this.#limits.maxQueuedBytes) {
      this.close('slow');
      return false;
    }
    return true;
  }

  /** Periodic check (the server runs one timer for all watchers): deadlines and stalled sockets. */
  tick(): void {
    if (this.#closeReason) return;
    const now = this.#clock.now();
    if (this.#blockedSince !== undefined && now - this.#blockedSince >= this.#limits.stallTimeoutMs) {
      this.close('slow');
    } else if (this.#deadline !== undefined && now >= this.#deadline) {
      this.close('timeout');
    }
  }

  close(reason: WatchCloseReason): void {
    if (this.#closeReason) return;
    this.#closeReason = reason;
    if (reason === 'slow' || reason === 'client') {
      // Drop the backlog and the socket's own buffers now: that memory is what we are bounding.
      this.#queue = [];
      this.#head = 0;
      this.#queuedBytes = 0;
      this.#target.destroy();
    } else {
      // A clean end: what is queued still goes out (bounded by the limits), then the response ends.
      this.#flush();
      this.#queue = [];
      this.#head = 0;
      this.#queuedBytes = 0;
      this.#target.end();
    }
    this.#observer.closed?.(reason);
    this.#abort.abort();
  }

  #write(frame: Uint8Array): void {
    if (!this.#corked && this.#target.cork) {
      // Frames sent in one tick (a burst of store events) leave in one TLS record and syscall
      // instead of one each.
      this.#corked = true;
      this.#target.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.#target.uncork?.();
      });
    }
    this.#lastSendAt = this.#clock.now();
    this.#observer.sent?.(frame.length);
    if (!this.#target.write(frame) && this.#blockedSince === undefined) {
      this.#blockedSince = this.#lastSendAt;
      this.#target.once('drain', () => this.#onDrain());
    }
  }

  #onDrain(): void {
    this.#blockedSince = undefined;
    if (this.#closeReason) return;
    this.#flush();
  }

  /** Writes queued frames until the socket pushes back again. */
  #flush(): void {
    while (this.#head < this.#queue.length && (this.#blockedSince === undefined || this.#closeReason)) {
      const frame = this.#queue[this.#head]!;
      this.#queue[this.#head++] = EMPTY;
      this.#queuedBytes -= frame.length;
      this.#write(frame);
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      // Compact now and then so a long-lived backlog does not keep consumed slots alive.
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}

const EMPTY = new Uint8Array(0);
