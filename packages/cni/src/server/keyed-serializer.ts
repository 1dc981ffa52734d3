/**
 * Runs tasks one at a time per key and in parallel across keys: the agent's per-container lock
 * (Antrea's containerAccessArbitrator). Every CNI request for one container (ADD, its rollback, CHECK,
 * DEL) touches the same OVS port, IP allocation and flows, so they must not interleave; requests for
 * different containers must not wait for each other. Tasks of one key run in arrival order.
 */
export class KeyedSerializer {
  /** The tail of each key's chain; removed when the last task of the key settles. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    // The chain continues whether the task fails or not: one failed ADD must not block the DEL.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or queued. */
  get busyKeys(): number {
    return this.tails.size;
  }
}
