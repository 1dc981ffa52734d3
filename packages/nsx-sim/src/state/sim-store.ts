import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { StatePersistence } from './persistence.js';
import { emptyState, type SimState } from './types.js';

/** What a mutation touched; `policy` changes wake CCP feed watchers. */
export type ChangeKind =
  | 'policy'
  | 'inventory'
  | 'health'
  | 'statistics'
  | 'realization'
  | 'traceflow'
  | 'bundle'
  | 'identity'
  | 'admin';

export interface ChangeEvent {
  generation: number;
  policyGeneration: number;
  kind: ChangeKind;
}

/**
 * The in-memory state plus change notification and write-behind persistence.
 * Handlers mutate `state` synchronously and then call `commit(kind)`; the store bumps the generation,
 * notifies waiters and schedules one coalesced save.
 */
export class SimStore {
  state: SimState;
  generation = 0;
  policyGeneration = 0;
  private readonly events = new EventEmitter();
  private readonly log: Logger;
  private saving: Promise<void> | undefined;
  private dirty = false;
  private lastSaveError: unknown;
  private batch: Set<ChangeKind> | undefined;

  constructor(
    private readonly persistence: StatePersistence,
    logger: Logger,
    initial?: SimState,
  ) {
    this.log = logger.child({ component: 'nsx-sim-store' });
    this.state = initial ?? emptyState();
    this.events.setMaxListeners(0);
  }

  /** Loads the persisted state if there is one; returns whether it did. */
  async load(): Promise<boolean> {
    const loaded = await this.persistence.load();
    if (!loaded) return false;
    this.state = loaded;
    this.log.info({ objects: Object.keys(loaded.policy).length }, 'loaded persisted state');
    return true;
  }

  /**
   * Runs `fn` as one change: commits inside are collected and emitted once at the end; if `fn`
   * throws, the state is restored to what it was before and nothing is emitted or saved.
   */
  transaction<T>(fn: () => T): T {
    const outer = this.batch === undefined;
    const snapshot = outer ? structuredClone(this.state) : undefined;
    if (outer) this.batch = new Set();
    try {
      return fn();
    } catch (err) {
      if (outer && snapshot) {
        this.state = snapshot;
        this.batch = new Set();
      }
      throw err;
    } finally {
      if (outer) {
        const kinds = this.batch ?? new Set();
        this.batch = undefined;
        for (const k of kinds) this.commit(k);
      }
    }
  }

  commit(kind: ChangeKind): void {
    if (this.batch) {
      this.batch.add(kind);
      return;
    }
    this.generation += 1;
    if (kind === 'policy' || kind === 'admin') this.policyGeneration += 1;
    this.scheduleSave();
    const ev: ChangeEvent = { generation: this.generation, policyGeneration: this.policyGeneration, kind };
    this.events.emit('change', ev);
  }

  onChange(listener: (ev: ChangeEvent) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  /**
   * Resolves with true as soon as `predicate()` holds (checked now and after every commit), or false
   * when `timeoutMs` passes or `signal` aborts.
   */
  waitFor(predicate: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (predicate()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener('abort', onAbort);
        resolve(ok);
      };
      const onAbort = () => finish(false);
      const off = this.onChange(() => {
        let ok = false;
        try {
          ok = predicate();
        } catch {
          ok = false;
        }
        if (ok) finish(true);
      });
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private scheduleSave(): void {
    this.dirty = true;
    if (this.saving) return;
    this.saving = this.drain().finally(() => {
      this.saving = undefined;
    });
  }

  private async drain(): Promise<void> {
    // Yield once so a burst of commits in one tick becomes one write.
    await Promise.resolve();
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.persistence.save(this.state);
        this.lastSaveError = undefined;
      } catch (err) {
        this.lastSaveError = err;
        this.log.error({ err }, 'saving state failed');
      }
    }
  }

  /** Waits until every committed change is on disk; rethrows the last save error if any. */
  async flush(): Promise<void> {
    while (this.saving) await this.saving;
    if (this.lastSaveError) throw this.lastSaveError;
  }
}
