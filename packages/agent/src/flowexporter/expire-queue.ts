/** What the queue orders: the earlier of the two export deadlines. */
export interface Expiring {
  activeExpireMs: number;
  idleExpireMs: number;
  /** Position in the heap; -1 when not queued. */
  heapIndex: number;
}

const due = (e: Expiring): number => Math.min(e.activeExpireMs, e.idleExpireMs);

/**
 * Connections waiting for their next export, earliest deadline first (Antrea's
 * ExpirePriorityQueue): a binary heap whose items remember their index, so a deadline change is
 * one sift rather than a search.
 */
export class ExpireQueue<T extends Expiring> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  has(item: T): boolean {
    return item.heapIndex >= 0 && this.items[item.heapIndex] === item;
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  /** Re-sorts after the item's deadlines changed. */
  fix(item: T): void {
    if (!this.has(item)) return;
    this.down(item.heapIndex);
    this.up(item.heapIndex);
  }

  remove(item: T): void {
    if (!this.has(item)) return;
    const i = item.heapIndex;
    const last = this.items.pop()!;
    item.heapIndex = -1;
    if (last !== item) {
      this.items[i] = last;
      last.heapIndex = i;
      this.fix(last);
    }
  }

  /** The earliest deadline, or undefined when empty. */
  nextDueMs(): number | undefined {
    const top = this.items[0];
    return top ? due(top) : undefined;
  }

  /** Removes and returns the top item if its deadline is at or before `nowMs`. */
  popDue(nowMs: number): T | undefined {
    const top = this.items[0];
    if (!top || due(top) > nowMs) return undefined;
    this.remove(top);
    return top;
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (due(items[parent]!) <= due(items[i]!)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && due(items[l]!) < due(items[m]!)) m = l;
      if (r < items.length && due(items[r]!) < due(items[m]!)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    const x = items[a]!;
    const y = items[b]!;
    items[a] = y;
    items[b] = x;
    x.heapIndex = b;
    y.heapIndex = a;
  }
}
