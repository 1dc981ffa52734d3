import type { Logger } from 'pino';
import {
  decodeTableUpdates,
  decodeTableUpdates2,
  encodeMonitorRequests,
  type MonitorCondRequest,
  type MonitorRequest,
  type MonitorRequests,
  type TableUpdates,
  type TableUpdates2,
} from './codec/monitor.js';
import {
  type Condition,
  decodeTransactResult,
  encodeConditions,
  encodeOperation,
  type Operation,
  type OperationResult,
} from './codec/operations.js';
import { type DatabaseSchema, decodeSchema } from './codec/schema.js';
import { OvsdbError, OvsdbProtocolError } from './errors.js';
import type { JsonRpcConnection } from './transport/connection.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  ReconnectingSession,
  type RequestOptions,
  type SessionOptions,
} from './transport/session.js';

/** How an update reached a monitor handler. */
export interface UpdateInfo {
  /**
   * True for the reply to the monitor request: the full current contents. It also arrives after
   * every reconnect, so a handler must replace (not merge into) its cache when it sees it.
   */
  initial: boolean;
}

export type UpdateHandler = (updates: TableUpdates, info: UpdateInfo) => void;
export type Update2Handler = (updates: TableUpdates2, info: UpdateInfo) => void;

export interface MonitorHandle {
  readonly id: string;
  /** Sends monitor_cancel (if connected) and stops delivering updates. Idempotent. */
  cancel(): Promise<void>;
}

export interface CondMonitorHandle extends MonitorHandle {
  /**
   * Replaces the conditions of the listed tables (monitor_cond_change); other tables keep theirs.
   * Rows that start or stop matching arrive as insert/delete updates before this resolves.
   */
  changeConditions(where: Readonly<Record<string, readonly Condition[]>>): Promise<void>;
}

export type LockEvent =
  | { type: 'locked'; lock: string }
  /** Another client used `steal`; we no longer hold the lock. */
  | { type: 'stolen'; lock: string }
  /** The connection dropped, so the server released the lock; it is requested again on reconnect. */
  | { type: 'lost'; lock: string };

/** What the rest of Antrea-TS depends on; the typed Open_vSwitch layer and fakes implement it. */
export interface OvsdbClient {
  listDbs(options?: RequestOptions): Promise<string[]>;
  getSchema(db: string, options?: RequestOptions): Promise<DatabaseSchema>;
  transact(db: string, ops: readonly Operation[], options?: RequestOptions): Promise<OperationResult[]>;
  monitor(
    db: string,
    requests: MonitorRequests<MonitorRequest>,
    onUpdate: UpdateHandler,
  ): Promise<MonitorHandle>;
  monitorCond(
    db: string,
    requests: MonitorRequests<MonitorCondRequest>,
    onUpdate: Update2Handler,
  ): Promise<CondMonitorHandle>;
}

export interface OvsdbRpcClientOptions extends Omit<SessionOptions, 'onConnected' | 'onNotification'> {}

interface MonitorEntry {
  id: string;
  /** The connection this monitor was last created on, so a reconnect and a new monitor never both send it. */
  armedOn?: JsonRpcConnection;
  db: string;
  method: 'monitor' | 'monitor_cond';
  requests: Record<string, unknown>;
  deliver: (raw: unknown, info: UpdateInfo) => void;
}

/**
 * OVSDB client over a reconnecting JSON-RPC session. Monitors and locks are remembered and
 * re-created on every new connection, because the server forgets them when a connection drops.
 */
export class OvsdbRpcClient implements OvsdbClient {
  private readonly log: Logger;
  private readonly session: ReconnectingSession;
  private readonly monitors = new Map<string, MonitorEntry>();
  private readonly wantedLocks = new Set<string>();
  private readonly heldLocks = new Set<string>();
  private readonly lockListeners = new Set<(event: LockEvent) => void>();
  private nextMonitor = 1;
  private readonly requestTimeoutMs: number;

  constructor(options: OvsdbRpcClientOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.log = options.logger.child({ component: 'ovsdb-client' });
    this.session = new ReconnectingSession({
      ...options,
      logger: this.log,
      onConnected: (conn) => this.rearm(conn),
      onNotification: (method, params) => this.onNotification(method, params),
      onDisconnected: (error) => {
        for (const lock of this.heldLocks) this.emitLock({ type: 'lost', lock });
        this.heldLocks.clear();
        options.onDisconnected?.(error);
      },
    });
  }

  get isConnected(): boolean {
    return this.session.isConnected;
  }

  /** Starts connecting and resolves once the first connection is up (or rejects on timeout). */
  async start(signal?: AbortSignal, options: { timeoutMs?: number } = {}): Promise<void> {
    this.session.start(signal);
    await this.session.connected(options.timeoutMs);
  }

  /** Resolves when connected (and monitors re-armed); useful after a server restart. */
  async waitConnected(timeoutMs?: number): Promise<void> {
    await this.session.connected(timeoutMs);
  }

  stop(): Promise<void> {
    this.monitors.clear();
    return this.session.stop();
  }

  async listDbs(options?: RequestOptions): Promise<string[]> {
    const result = await this.session.request('list_dbs', [], options);
    if (!Array.isArray(result) || !result.every((x) => typeof x === 'string')) {
      throw new OvsdbProtocolError('list_dbs result is not an array of strings');
    }
    return result;
  }

  async getSchema(db: string, options?: RequestOptions): Promise<DatabaseSchema> {
    return decodeSchema(await this.session.request('get_schema', [db], options));
  }

  /**
   * Runs operations atomically. Resolves with one result per operation; rejects with
   * OVSDB_TXN_FAILED if any operation or the commit failed (nothing was committed then),
   * OVSDB_RPC_ERROR for request-level errors, OVSDB_DISCONNECTED if the connection dropped before
   * the reply (the outcome is then unknown to us).
   */
  async transact(
    db: string,
    ops: readonly Operation[],
    options?: RequestOptions,
  ): Promise<OperationResult[]> {
    const result = await this.session.request('transact', [db, ...ops.map(encodeOperation)], options);
    return decodeTransactResult(ops, result);
  }

  async echo(params: readonly unknown[] = [], options?: RequestOptions): Promise<unknown[]> {
    const result = await this.session.request('echo', params, options);
    if (!Array.isArray(result)) throw new OvsdbProtocolError('echo result is not an array');
    return result;
  }

  monitor(
    db: string,
    requests: MonitorRequests<MonitorRequest>,
    onUpdate: UpdateHandler,
  ): Promise<MonitorHandle> {
    return this.addMonitor(db, 'monitor', encodeMonitorRequests(requests), (raw, info) =>
      onUpdate(decodeTableUpdates(raw), info),
    );
  }

  async monitorCond(
    db: string,
    requests: MonitorRequests<MonitorCondRequest>,
    onUpdate: Update2Handler,
  ): Promise<CondMonitorHandle> {
    const encoded = encodeMonitorRequests(requests);
    const handle = await this.addMonitor(db, 'monitor_cond', encoded, (raw, info) =>
      onUpdate(decodeTableUpdates2(raw), info),
    );
    return {
      ...handle,
      changeConditions: async (where) => {
        const change: Record<string, unknown> = {};
        for (const [table, conditions] of Object.entries(where)) {
          change[table] = [{ where: encodeConditions(conditions) }];
        }
        await this.session.request('monitor_cond_change', [handle.id, handle.id, change]);
        // Remembered so a reconnect re-creates the monitor with the new conditions.
        for (const [table, conditions] of Object.entries(where)) {
          const current = (encoded[table] ?? {}) as Record<string, unknown>;
          encoded[table] = { ...current, where: encodeConditions(conditions) };
        }
      },
    };
  }

  /**
   * Asks for a lock; resolves true if granted now, false if queued (a `locked` event follows).
   * Lock names follow the RFC <id> grammar: letters, digits and underscores.
   */
  async lock(id: string, options?: RequestOptions): Promise<boolean> {
    checkLockId(id);
    this.wantedLocks.add(id);
    const locked = lockedOf(await this.session.request('lock', [id], options));
    if (locked) this.heldLocks.add(id);
    return locked;
  }

  async steal(id: string, options?: RequestOptions): Promise<void> {
    checkLockId(id);
    this.wantedLocks.add(id);
    lockedOf(await this.session.request('steal', [id], options));
    this.heldLocks.add(id);
  }

  async unlock(id: string, options?: RequestOptions): Promise<void> {
    this.wantedLocks.delete(id);
    this.heldLocks.delete(id);
    await this.session.request('unlock', [id], options);
  }

  onLockEvent(listener: (event: LockEvent) => void): () => void {
    this.lockListeners.add(listener);
    return () => this.lockListeners.delete(listener);
  }

  private async addMonitor(
    db: string,
    method: MonitorEntry['method'],
    requests: Record<string, unknown>,
    deliver: MonitorEntry['deliver'],
  ): Promise<MonitorHandle> {
    const id = `m${this.nextMonitor++}`;
    const entry: MonitorEntry = { id, db, method, requests, deliver };
    // Registered before the request so no notification can slip past between reply and handler.
    this.monitors.set(id, entry);
    try {
      const conn = await this.session.connected(this.requestTimeoutMs);
      if (entry.armedOn !== conn) {
        entry.armedOn = conn;
        const initial = await conn.request(method, [db, id, requests], this.requestTimeoutMs);
        entry.deliver(initial, { initial: true });
      }
    } catch (err) {
      this.monitors.delete(id);
      throw err;
    }
    return {
      id,
      cancel: async () => {
        if (!this.monitors.delete(id)) return;
        if (!this.session.isConnected) return;
        try {
          await this.session.request('monitor_cancel', [id]);
        } catch (err) {
          // The monitor is gone locally either way; a dropped connection cancelled it server-side.
          if (!(OvsdbError.is(err) && err.code === 'OVSDB_DISCONNECTED')) throw err;
        }
      },
    };
  }

  /** Re-creates monitors and locks on a fresh connection before other requests may use it. */
  private async rearm(conn: JsonRpcConnection): Promise<void> {
    for (const entry of this.monitors.values()) {
      entry.armedOn = conn;
      let initial: unknown;
      try {
        initial = await conn.request(
          entry.method,
          [entry.db, entry.id, entry.requests],
          this.requestTimeoutMs,
        );
      } catch (err) {
        // A server that now refuses this monitor (schema changed, database gone) would otherwise
        // make every reconnect fail; drop the monitor and keep the connection.
        if (OvsdbError.is(err) && err.code === 'OVSDB_RPC_ERROR') {
          this.log.error({ err, monitor: entry.id }, 'server refused to re-create monitor; dropping it');
          this.monitors.delete(entry.id);
          continue;
        }
        throw err;
      }
      // Skipped if cancelled while we waited.
      if (this.monitors.has(entry.id)) this.safeDeliver(entry, initial, { initial: true });
    }
    for (const lock of this.wantedLocks) {
      if (lockedOf(await conn.request('lock', [lock], this.requestTimeoutMs))) {
        this.heldLocks.add(lock);
        this.emitLock({ type: 'locked', lock });
      }
    }
  }

  private onNotification(method: string, params: unknown[]): void {
    switch (method) {
      case 'update':
      case 'update2': {
        const entry = this.monitors.get(String(params[0]));
        if (!entry) {
          this.log.debug({ method, id: params[0] }, 'update for unknown monitor');
          return;
        }
        this.safeDeliver(entry, params[1], { initial: false });
        return;
      }
      case 'locked':
      case 'stolen': {
        const lock = String(params[0]);
        if (method === 'locked') this.heldLocks.add(lock);
        else this.heldLocks.delete(lock);
        this.emitLock({ type: method, lock });
        return;
      }
      default:
        this.log.debug({ method }, 'ignoring unknown notification');
    }
  }

  private safeDeliver(entry: MonitorEntry, raw: unknown, info: UpdateInfo): void {
    try {
      entry.deliver(raw, info);
    } catch (err) {
      // A bad update or a throwing handler must not take the connection down with it.
      this.log.error({ err, monitor: entry.id }, 'monitor update could not be delivered');
    }
  }

  private emitLock(event: LockEvent): void {
    for (const listener of this.lockListeners) {
      try {
        listener(event);
      } catch (err) {
        this.log.error({ err, event }, 'lock listener threw');
      }
    }
  }
}

function checkLockId(id: string): void {
  // The server answers a bad name with a bare "syntax error"; say what is wrong instead.
  if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(id)) {
    throw new OvsdbProtocolError(`lock name ${JSON.stringify(id)} must match [_a-zA-Z][_a-zA-Z0-9]*`);
  }
}

function lockedOf(result: unknown): boolean {
  if (
    typeof result !== 'object' ||
    result === null ||
    typeof (result as { locked?: unknown }).locked !== 'boolean'
  ) {
    throw new OvsdbProtocolError('lock result has no boolean "locked"');
  }
  return (result as { locked: boolean }).locked;
}
