import type { Clock } from './clock.js';

/**
 * A bounded map whose entries expire. Insertion order doubles as LRU order (a hit re-inserts), so
 * the oldest entry is evicted first once `maxEntries` is reached: memory stays bounded however
 * many distinct tokens or users callers present.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0 || this.maxEntries <= 0) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
