const SMALL = 8;
const EMPTY: never[] = [];

/**
 * A set that stores up to 8 items in a plain array and switches to a Set beyond that. Most sets in
 * the engine (Pods of a label set, policies of a group, Nodes of a span) hold one to four items; a
 * Set costs ~150 bytes of hash table even when nearly empty, this ~60. Iteration order is insertion
 * order, like Set.
 */
export class SmallSet<T> implements ReadonlySet<T> {
  private arr: T[] | undefined;
  private set: Set<T> | undefined;

  constructor(items?: Iterable<T>) {
    if (items) for (const x of items) this.add(x);
  }

  get size(): number {
    return this.set ? this.set.size : (this.arr?.length ?? 0);
  }

  has(x: T): boolean {
    return this.set ? this.set.has(x) : !!this.arr?.includes(x);
  }

  add(x: T): this {
    if (this.set) {
      this.set.add(x);
      return this;
    }
    if (!this.arr) {
      this.arr = [x];
      return this;
    }
    if (this.arr.includes(x)) return this;
    // A fresh exact-size array (concat): push() or spread would leave ~17 slots of capacity,
    // which costs more than the Set this class replaces.
    if (this.arr.length < SMALL) this.arr = this.arr.concat([x]);
    else {
      this.set = new Set(this.arr);
      this.set.add(x);
      this.arr = undefined;
    }
    return this;
  }

  delete(x: T): boolean {
    if (this.set) return this.set.delete(x);
    if (!this.arr) return false;
    const i = this.arr.indexOf(x);
    if (i < 0) return false;
    this.arr = this.arr.length === 1 ? undefined : this.arr.filter((y) => y !== x);
    return true;
  }

  clear(): void {
    this.arr = undefined;
    this.set = undefined;
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.values();
  }

  values(): SetIterator<T> {
    if (this.set) return this.set.values();
    // No copy: the engine never deletes from a set while iterating that same set.
    return (this.arr ?? EMPTY).values() as unknown as SetIterator<T>;
  }

  keys(): SetIterator<T> {
    return this.values();
  }

  entries(): SetIterator<[T, T]> {
    const it = this.values();
    return (function* () {
      for (const x of it) yield [x, x] as [T, T];
    })() as unknown as SetIterator<[T, T]>;
  }

  forEach(cb: (value: T, value2: T, set: ReadonlySet<T>) => void, thisArg?: unknown): void {
    for (const x of this.values()) cb.call(thisArg, x, x, this);
  }
}
