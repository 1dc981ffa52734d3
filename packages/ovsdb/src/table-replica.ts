import type { Logger } from 'pino';
import type { CondMonitorHandle, OvsdbClient } from './client.js';
import { applyRowDiff, normalizeRow, type TableUpdates2 } from './codec/monitor.js';
import type { Condition } from './codec/operations.js';
import type { TableSchema } from './codec/schema.js';
import type { Row } from './codec/value.js';
import { OvsdbClosedError, OvsdbNotFoundError, OvsdbTimeoutError } from './errors.js';
import { type Clock, systemClock } from './transport/clock.js';

export type ReplicaEvent =
  /** The whole contents were replaced: the first snapshot, or a fresh one after a reconnect. */
  | { type: 'reset' }
  | { type: 'insert'; uuid: string; row: Row }
  | { type: 'modify'; uuid: string; old: Row; row: Row }
  | { type: 'delete'; uuid: string; old: Row };

export interface TableReplicaOptions {
  db: string;
  table: string;
  /** Columns to replicate; all when absent. */
  columns?: readonly string[];
  /** Only rows matching every condition are replicated. */
  where?: readonly Condition[];
  logger: Logger;
  clock?: Clock;
}

/**
 * An in-memory copy of one table (or the rows of it matching a condition), kept current by a
 * monitor_cond. Set columns are normalised so values compare equal however the server sent them.
 * After a reconnect the client re-creates the monitor and the replica starts over from the new
 * snapshot, emitting `reset`.
 */
export class TableReplica {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly current = new Map<string, Row>();
  private readonly listeners = new Set<(event: ReplicaEvent) => void>();
  private schema: TableSchema | undefined;
  private handle: CondMonitorHandle | undefined;
  private stopped = false;

  constructor(
    private readonly client: OvsdbClient,
    private readonly options: TableReplicaOptions,
  ) {
    this.log = options.logger.child({ component: 'ovsdb-replica', table: options.table });
    this.clock = options.clock ?? systemClock;
  }

  /** Loads the schema, starts the monitor and resolves once the first snapshot is in. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.handle) return;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const schema = (await this.client.getSchema(this.options.db)).tables[this.options.table];
    if (!schema)
      throw new OvsdbNotFoundError(`table ${this.options.table} not in database ${this.options.db}`);
    this.schema = schema;
    const request: { columns?: readonly string[]; where?: readonly Condition[] } = {};
    if (this.options.columns) request.columns = this.options.columns;
    if (this.options.where) request.where = this.options.where;
    this.handle = await this.client.monitorCond(
      this.options.db,
      { [this.options.table]: request },
      (u, info) => this.apply(u, info.initial),
    );
    if (this.stopped) await this.handle.cancel();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.cancel();
    this.listeners.clear();
  }

  get rows(): ReadonlyMap<string, Row> {
    return this.current;
  }

  on(listener: (event: ReplicaEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Narrows the replicated rows (monitor_cond_change); the replica is updated before this resolves. */
  async setWhere(where: readonly Condition[]): Promise<void> {
    if (!this.handle) throw new OvsdbClosedError('replica is not started');
    await this.handle.changeConditions({ [this.options.table]: where });
  }

  /**
   * Resolves with the first row (present now or arriving later) that satisfies `predicate`;
   * rejects with OVSDB_TIMEOUT after `timeoutMs`. Useful for "wait until ovs-vswitchd set ofport".
   */
  waitFor(
    predicate: (row: Row, uuid: string) => boolean,
    timeoutMs: number,
  ): Promise<{ uuid: string; row: Row }> {
    for (const [uuid, row] of this.current) if (predicate(row, uuid)) return Promise.resolve({ uuid, row });
    if (this.stopped) return Promise.reject(new OvsdbClosedError('replica is stopped'));
    return new Promise((resolve, reject) => {
      let timer: unknown;
      let off: () => void = () => {};
      const done = () => {
        off();
        this.clock.clearTimeout(timer);
      };
      off = this.on(() => {
        for (const [uuid, row] of this.current) {
          if (predicate(row, uuid)) {
            done();
            resolve({ uuid, row });
            return;
          }
        }
      });
      timer = this.clock.setTimeout(() => {
        done();
        reject(new OvsdbTimeoutError(`no ${this.options.table} row matched within ${timeoutMs} ms`));
      }, timeoutMs);
    });
  }

  private apply(updates: TableUpdates2, initial: boolean): void {
    const schema = this.schema;
    if (!schema || this.stopped) return;
    const events: ReplicaEvent[] = [];
    if (initial) {
      this.current.clear();
      events.push({ type: 'reset' });
    }
    for (const [uuid, u] of Object.entries(updates[this.options.table] ?? {})) {
      const old = this.current.get(uuid);
      switch (u.kind) {
        case 'initial':
        case 'insert': {
          const row = normalizeRow(u.row, schema);
          this.current.set(uuid, row);
          if (!initial) events.push({ type: 'insert', uuid, row });
          break;
        }
        case 'modify': {
          if (!old) {
            this.log.warn({ uuid }, 'modify for a row the replica does not have');
            break;
          }
          const row = applyRowDiff(old, u.diff, schema);
          this.current.set(uuid, row);
          events.push({ type: 'modify', uuid, old, row });
          break;
        }
        case 'delete':
          if (old) {
            this.current.delete(uuid);
            events.push({ type: 'delete', uuid, old });
          }
          break;
      }
    }
    for (const event of events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch (err) {
          this.log.error({ err, event: event.type }, 'replica listener threw');
        }
      }
    }
  }
}
