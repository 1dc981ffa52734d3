/**
 * Runs tasks one at a time per key and concurrently across keys: CNI requests for one container
 * serialize (kubelet may retry ADD while DEL runs), different containers proceed in parallel.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const result = prev.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      // Forget the key once nothing else queued behind this task.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  get activeKeys(): number {
    return this.tails.size;
  }
}
