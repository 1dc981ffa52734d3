import { CONTROLPLANE_API_VERSION } from '@antrea-ts/apis';
import type { ApiObject, WatchSink } from '@antrea-ts/apiserver';
import type { Logger } from 'pino';
import type { SpannedObject, Store, StoreEvent, Versioned } from '../store/ram-store.js';
import { deletedObject, type WireConversion } from './conversions.js';
import { InitialBatch, SharedEncodings } from './initial-batch.js';

/** What a watcher asked for: one Node's span (or every Node), optionally one object by name. */
export interface WatchScope {
  node: string | undefined;
  name: string | undefined;
}

interface Watcher {
  readonly scope: WatchScope;
  readonly sink: WatchSink;
}

export interface HubObserver {
  /** Events queued to watchers (one per watcher per event). */
  sent?(resource: string, count: number): void;
  /** Duration of one store event's fan-out, in ms. */
  dispatched?(resource: string, ms: number): void;
}

const ALL = '\u0000all';

/**
 * Serves one store to its watchers with Antrea's semantics (pkg/apiserver/storage/ram/watch.go and
 * pkg/controller/networkpolicy/store): per watcher, an event becomes ADDED when the object enters
 * the watcher's span, MODIFIED (a patch for groups) while it stays, DELETED (metadata only) when it
 * leaves. Each wire object is built once per event (per Node only where the content is per Node)
 * and the server's frame cache encodes it once, so N watchers cost one encoding. A per-Node index
 * of names makes a new watcher's initial list proportional to its span, not to the store.
 */
export class SpanWatchHub<T extends SpannedObject & { uid: string }> {
  readonly #store: Store<T>;
  readonly #conv: WireConversion<T>;
  readonly #log: Logger;
  readonly #observer: HubObserver;
  readonly #now: () => number;
  /** Watchers by Node; ALL for watchers of every Node. */
  readonly #watchers = new Map<string, Set<Watcher>>();
  /** Names of the objects whose span contains each Node. */
  readonly #byNode = new Map<string, Set<string>>();
  /** Full wire object of each stored version, shared by every watcher and list (non-per-Node kinds). */
  readonly #fullCache = new WeakMap<T, { rv: number; obj: ApiObject }>();
  #bookmark: { rv: number; obj: ApiObject } | undefined;
  /** Encodings of shared wire objects: every watcher's initial list reuses them. */
  readonly #encodings = new SharedEncodings();
  #unsubscribe: (() => void) | undefined;
  #count = 0;

  constructor(
    store: Store<T>,
    conversion: WireConversion<T>,
    opts: { logger: Logger; observer?: HubObserver; now?: () => number },
  ) {
    this.#store = store;
    this.#conv = conversion;
    this.#log = opts.logger.child({ component: 'watch-hub', resource: conversion.resource });
    this.#observer = opts.observer ?? {};
    this.#now = opts.now ?? (() => performance.now());
  }

  get conversion(): WireConversion<T> {
    return this.#conv;
  }

  /** Open watchers. */
  get watcherCount(): number {
    return this.#count;
  }

  /** Nodes with at least one open watcher (connected agents). */
  watchedNodes(): string[] {
    return [...this.#watchers.keys()].filter((k) => k !== ALL);
  }

  /** Subscribes to the store and indexes what it holds. Idempotent. */
  start(): void {
    if (this.#unsubscribe) return;
    // Subscribe before indexing: both are synchronous, so no change falls between them.
    this.#unsubscribe = this.#store.subscribe((ev) => this.#onEvent(ev));
    for (const { object } of this.#store.list().items) this.#index(undefined, object);
  }

  /** Unsubscribes and closes every watcher (clients re-list). Idempotent. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const set of this.#watchers.values()) for (const w of set) w.sink.close();
    this.#watchers.clear();
    this.#byNode.clear();
    this.#count = 0;
  }

  /** The object as `node` sees it (undefined when outside that Node's span). */
  get(name: string, node: string | undefined): ApiObject | undefined {
    const v = this.#store.get(name);
    if (!v || (node !== undefined && !v.object.span.has(node))) return undefined;
    return this.#full(v.object, v.resourceVersion, node);
  }

  /** The list as `node` sees it. */
  list(scope: WatchScope): ApiObject {
    const items = this.#select(scope).map((v) => this.#full(v.object, v.resourceVersion, scope.node));
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: this.#conv.listKind,
      metadata: { resourceVersion: String(this.#store.resourceVersion) },
      items,
    };
  }

  /**
   * Sends ADDED for everything in scope, then a BOOKMARK (what an Antrea agent waits for before
   * replacing its state), then live events until the sink closes. `initialEvents` false (a watch
   * resumed at the current resourceVersion) skips the ADDED events.
   */
  watch(scope: WatchScope, sink: WatchSink, initialEvents = true, watchList = false): void {
    if (!this.#unsubscribe) this.start();
    const batch = new InitialBatch(sink, this.#encodings);
    if (initialEvents) {
      for (const v of this.#select(scope)) {
        if (!batch.add('ADDED', this.#full(v.object, v.resourceVersion, scope.node), !this.#conv.perNode))
          return;
      }
    }
    // A watch-list client (sendInitialEvents=true) is told where the initial events end.
    const bookmark = watchList ? this.#initialEventsEnd() : this.bookmark();
    if (!batch.add('BOOKMARK', bookmark, !watchList) || !batch.flush()) return;
    const watcher: Watcher = { scope, sink };
    const key = scope.node ?? ALL;
    let set = this.#watchers.get(key);
    if (!set) {
      set = new Set();
      this.#watchers.set(key, set);
    }
    set.add(watcher);
    this.#count++;
    sink.signal.addEventListener('abort', () => this.#remove(key, watcher), { once: true });
  }

  /** An empty object at the store's current resourceVersion, shared until the next change. */
  bookmark(): ApiObject {
    const rv = this.#store.resourceVersion;
    if (this.#bookmark?.rv !== rv) {
      this.#bookmark = {
        rv,
        obj: {
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: this.#conv.kind,
          metadata: { resourceVersion: String(rv) },
        },
      };
    }
    return this.#bookmark.obj;
  }

  #initialEventsEnd(): ApiObject {
    const b = this.bookmark();
    return {
      ...b,
      metadata: {
        ...(b.metadata as object),
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    };
  }

  #remove(key: string, w: Watcher): void {
    const set = this.#watchers.get(key);
    if (!set?.delete(w)) return;
    this.#count--;
    if (set.size === 0) this.#watchers.delete(key);
  }

  #select(scope: WatchScope): Versioned<T>[] {
    if (scope.name !== undefined) {
      const v = this.#store.get(scope.name);
      return v && (scope.node === undefined || v.object.span.has(scope.node)) ? [v] : [];
    }
    if (scope.node === undefined) return this.#store.list().items;
    const out: Versioned<T>[] = [];
    for (const name of this.#byNode.get(scope.node) ?? []) {
      const v = this.#store.get(name);
      if (v) out.push(v);
    }
    return out;
  }

  #full(obj: T, rv: number, node: string | undefined): ApiObject {
    if (this.#conv.perNode) return this.#conv.full(obj, rv, node);
    const cached = this.#fullCache.get(obj);
    if (cached && cached.rv === rv) return cached.obj;
    const wire = this.#conv.full(obj, rv, undefined);
    this.#fullCache.set(obj, { rv, obj: wire });
    return wire;
  }

  #index(prev: T | undefined, curr: T | undefined): void {
    if (prev) {
      for (const n of prev.span) {
        if (curr?.span.has(n)) continue;
        const set = this.#byNode.get(n);
        set?.delete(prev.name);
        if (set?.size === 0) this.#byNode.delete(n);
      }
    }
    if (curr) {
      for (const n of curr.span) {
        let set = this.#byNode.get(n);
        if (!set) {
          set = new Set();
          this.#byNode.set(n, set);
        }
        set.add(curr.name);
      }
    }
  }

  #onEvent(ev: StoreEvent<T>): void {
    const t0 = this.#now();
    const prev = ev.type === 'ADDED' ? undefined : ev.prevObject;
    const curr = ev.type === 'DELETED' ? undefined : ev.object;
    this.#index(prev, curr);
    if (this.#count === 0) return;
    const rv = ev.resourceVersion;
    const conv = this.#conv;
    // Built lazily, once per event (per Node for per-Node kinds), shared by every watcher.
    let added: ApiObject | undefined;
    let deleted: ApiObject | undefined;
    let modified: ApiObject | undefined | null = null;
    let sent = 0;
    const deliver = (w: Watcher, node: string | undefined): void => {
      const { scope, sink } = w;
      if (scope.name !== undefined && scope.name !== ev.object.name) return;
      const was = prev !== undefined && (node === undefined || prev.span.has(node));
      const is = curr !== undefined && (node === undefined || curr.span.has(node));
      let type: 'ADDED' | 'MODIFIED' | 'DELETED';
      let obj: ApiObject | undefined;
      if (!was && is) {
        type = 'ADDED';
        if (conv.perNode) obj = conv.full(curr!, rv, node);
        else {
          added ??= this.#full(curr!, rv, undefined);
          obj = added;
        }
      } else if (was && is) {
        type = 'MODIFIED';
        if (conv.perNode) obj = conv.modified(prev!, curr!, rv, node);
        else {
          if (modified === null) modified = conv.modified(prev!, curr!, rv, undefined);
          obj = modified;
        }
      } else if (was && !is) {
        type = 'DELETED';
        deleted ??= deletedObject(conv.kind, ev.object, rv);
        obj = deleted;
      } else return;
      if (obj === undefined) return;
      sent++;
      // A false return means the watcher was dropped (too slow); its abort listener removes it.
      sink.send(type, obj);
    };
    const nodes = new Set<string>();
    if (prev) for (const n of prev.span) nodes.add(n);
    if (curr) for (const n of curr.span) nodes.add(n);
    // Iterate the smaller side: the Nodes the object touches, or the Nodes being watched.
    if (nodes.size <= this.#watchers.size) {
      for (const n of nodes) {
        const set = this.#watchers.get(n);
        if (set) for (const w of [...set]) deliver(w, n);
      }
    } else {
      for (const [n, set] of this.#watchers) {
        if (n === ALL || !nodes.has(n)) continue;
        for (const w of [...set]) deliver(w, n);
      }
    }
    const all = this.#watchers.get(ALL);
    if (all) for (const w of [...all]) deliver(w, undefined);
    this.#observer.sent?.(conv.resource, sent);
    this.#observer.dispatched?.(conv.resource, this.#now() - t0);
    if (sent > 0) this.#log.trace({ name: ev.object.name, type: ev.type, rv, watchers: sent }, 'event sent');
  }
}
