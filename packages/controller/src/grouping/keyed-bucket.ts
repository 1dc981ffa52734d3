const NONE: ReadonlySet<never> = new Set();

/**
 * A set that, once it grows past `threshold`, also indexes its items by string keys, so that
 * "items that could match key k" is a lookup rather than a scan. Small sets (the common case: a
 * few label sets or selectors per Namespace) stay plain sets and cost no index memory.
 */
export class KeyedBucket<T> {
  readonly items = new Set<T>();
  private index: Map<string, Set<T>> | undefined;
  /** Items without keys; only maintained while indexed. */
  private unkeyed: Set<T> | undefined;

  constructor(
    private readonly keysOf: (item: T) => readonly string[],
    private readonly threshold = 32,
  ) {}

  get size(): number {
    return this.items.size;
  }

  add(item: T): void {
    if (this.items.has(item)) return;
    this.items.add(item);
    if (this.index) this.indexItem(item);
    else if (this.items.size > this.threshold) {
      this.index = new Map();
      for (const it of this.items) this.indexItem(it);
    }
  }

  delete(item: T): boolean {
    if (!this.items.delete(item)) return false;
    if (this.index) {
      const keys = this.keysOf(item);
      if (keys.length === 0) this.unkeyed?.delete(item);
      for (const k of keys) {
        const set = this.index.get(k);
        if (set?.delete(item) && set.size === 0) this.index.delete(k);
      }
    }
    return true;
  }

  private indexItem(item: T): void {
    const keys = this.keysOf(item);
    if (keys.length === 0) {
      if (!this.unkeyed) this.unkeyed = new Set();
      this.unkeyed.add(item);
    }
    for (const k of keys) {
      const set = this.index!.get(k);
      if (set) set.add(item);
      else this.index!.set(k, new Set([item]));
    }
  }

  /** Items that may carry `key`: all of them when not indexed or when key is undefined. */
  candidatesFor(key: string | undefined): ReadonlySet<T> {
    if (!this.index || key === undefined) return this.items;
    return this.index.get(key) ?? NONE;
  }

  /**
   * Items keyed by any of `keys.list`, plus the keyless ones: all of them when not indexed (the
   * keys are then never computed).
   */
  candidatesForAny(keys: { readonly list: readonly string[] }): Iterable<T> {
    if (!this.index) return this.items;
    const out = new Set<T>(this.unkeyed ?? []);
    for (const k of keys.list) {
      const set = this.index.get(k);
      if (set) for (const it of set) out.add(it);
    }
    return out;
  }
}
