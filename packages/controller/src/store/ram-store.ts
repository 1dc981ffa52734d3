import type { Logger } from 'pino';
import type { Writable } from '../compute/engine.js';
import type { Span } from '../types.js';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent<T> {
  readonly type: StoreEventType;
  /** The object after the change; for DELETED, the object as it was. */
  readonly object: T;
  /** The object before the change (MODIFIED and DELETED). */
  readonly prevObject?: T;
  readonly resourceVersion: number;
}

export interface Versioned<T> {
  readonly object: T;
  readonly resourceVersion: number;
}

/** An object the stores hold: named, and sent only to the Nodes in its span. */
export interface SpannedObject {
  readonly name: string;
  readonly span: Span;
}

export type StoreListener<T> = (event: StoreEvent<T>) => void;

/** Read side of a store, what the API server serves list/get/watch from. */
export interface Store<T extends SpannedObject> {
  readonly kind: string;
  /** Resource version of the latest change (0 before any). */
  readonly resourceVersion: number;
  readonly size: number;
  get(name: string): Versioned<T> | undefined;
  list(): { items: Versioned<T>[]; resourceVersion: number };
  /**
   * Calls `listener` synchronously for every change after this call, in resource version order.
   * Subscribing and then calling list() observes no gap. Returns the unsubscribe function.
   */
  subscribe(listener: StoreListener<T>): () => void;
}

/**
 * In-memory store with a monotonically increasing resource version and one immutable event per
 * change (Antrea pkg/apiserver/storage/ram). Writing an object that is reference-equal to the
 * stored one is a no-op.
 */
export class RamStore<T extends SpannedObject> implements Store<T>, Writable<T> {
  readonly kind: string;
  private rv = 0;
  private readonly objects = new Map<string, Versioned<T>>();
  private readonly listeners = new Set<StoreListener<T>>();
  private readonly log: Logger | undefined;

  constructor(kind: string, logger?: Logger) {
    this.kind = kind;
    this.log = logger?.child({ component: 'ram-store', kind });
  }

  get resourceVersion(): number {
    return this.rv;
  }

  get size(): number {
    return this.objects.size;
  }

  get(name: string): Versioned<T> | undefined {
    return this.objects.get(name);
  }

  list(): { items: Versioned<T>[]; resourceVersion: number } {
    return { items: [...this.objects.values()], resourceVersion: this.rv };
  }

  subscribe(listener: StoreListener<T>): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  put(obj: T): void {
    const prev = this.objects.get(obj.name);
    if (prev && prev.object === obj) return;
    const resourceVersion = ++this.rv;
    this.objects.set(obj.name, { object: obj, resourceVersion });
    this.emit(
      prev
        ? { type: 'MODIFIED', object: obj, prevObject: prev.object, resourceVersion }
        : { type: 'ADDED', object: obj, resourceVersion },
    );
  }

  delete(name: string): void {
    const prev = this.objects.get(name);
    if (!prev) return;
    this.objects.delete(name);
    const resourceVersion = ++this.rv;
    this.emit({ type: 'DELETED', object: prev.object, prevObject: prev.object, resourceVersion });
  }

  private emit(ev: StoreEvent<T>): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch (err) {
        // A failing watcher must not break the writer or the other watchers.
        this.log?.error({ err, name: ev.object.name, type: ev.type }, 'store listener failed');
      }
    }
  }
}
