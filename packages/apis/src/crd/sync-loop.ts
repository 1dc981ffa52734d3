// A serialized, coalescing "sync everything" loop for controllers of small CRD sets (Egress in the
// controller and in the agent). It lives here, beside crdInformer, because both packages use it and
// neither may depend on the other.

export interface SyncLoopOptions {
  /** One whole sync; a rejection is reported and retried after retryMs. */
  sync: () => Promise<void>;
  onError: (err: unknown) => void;
  retryMs?: number;
}

/**
 * schedule() runs `sync` soon; calls while it runs fold into one more run after it. So a burst of
 * informer events costs one or two syncs, and two syncs never overlap.
 */
export class SyncLoop {
  readonly #o: SyncLoopOptions;
  #active = false;
  #running: Promise<void> | undefined;
  #again = false;
  #retry: ReturnType<typeof setTimeout> | undefined;

  constructor(options: SyncLoopOptions) {
    this.#o = options;
  }

  start(): void {
    this.#active = true;
    this.schedule();
  }

  /** No new sync starts; resolves once the running one ended. */
  async stop(): Promise<void> {
    this.#active = false;
    clearTimeout(this.#retry);
    await this.#running;
  }

  /** Settles when no sync is running or queued. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  schedule(): void {
    if (!this.#active) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run();
  }

  async #run(): Promise<void> {
    do {
      this.#again = false;
      // Let the rest of the current event burst arrive first.
      await new Promise((r) => setImmediate(r));
      try {
        await this.#o.sync();
      } catch (err) {
        this.#o.onError(err);
        clearTimeout(this.#retry);
        this.#retry = setTimeout(() => this.schedule(), this.#o.retryMs ?? 1000);
      }
    } while (this.#again && this.#active);
    this.#running = undefined;
  }
}
