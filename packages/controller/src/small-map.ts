const EMPTY: never[] = [];

/**
 * An immutable map over two exact-size arrays, for the many maps that hold a handful of keys (the
 * per-Node members of an AppliedToGroup usually span one to four Nodes). A Map costs ~400 bytes
 * even when tiny; this costs ~100. Lookups scan, so use it for small maps only (see `compactMap`).
 */
export class SmallMap<K, V> implements ReadonlyMap<K, V> {
  private readonly ks: K[];
  private readonly vs: V[];

  constructor(entries: Iterable<readonly [K, V]>) {
    const ks: K[] = [];
    const vs: V[] = [];
    for (const [k, v] of entries) {
      ks.push(k);
      vs.push(v);
    }
    this.ks = ks.slice();
    this.vs = vs.slice();
  }

  get size(): number {
    return this.ks.length;
  }

  get(k: K): V | undefined {
    const i = this.ks.indexOf(k);
    return i < 0 ? undefined : this.vs[i];
  }

  has(k: K): boolean {
    return this.ks.includes(k);
  }

  keys(): MapIterator<K> {
    return (this.ks.length ? this.ks : EMPTY).values() as unknown as MapIterator<K>;
  }

  values(): MapIterator<V> {
    return (this.vs.length ? this.vs : EMPTY).values() as unknown as MapIterator<V>;
  }

  entries(): MapIterator<[K, V]> {
    const { ks, vs } = this;
    return (function* () {
      for (let i = 0; i < ks.length; i++) yield [ks[i]!, vs[i]!] as [K, V];
    })() as unknown as MapIterator<[K, V]>;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(cb: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.ks.length; i++) cb.call(thisArg, this.vs[i]!, this.ks[i]!, this);
  }
}

/** A SmallMap for up to 8 keys, the Map itself beyond. */
export function compactMap<K, V>(m: Map<K, V>): ReadonlyMap<K, V> {
  return m.size <= 8 ? new SmallMap(m) : m;
}
