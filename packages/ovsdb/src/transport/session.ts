import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { OvsdbClosedError, OvsdbDisconnectedError, type OvsdbError } from '../errors.js';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import { type Clock, systemClock } from './clock.js';
import { JsonRpcConnection } from './connection.js';
import { connectEndpoint, describeEndpoint, type Endpoint, parseEndpoint } from './endpoint.js';

export interface SessionOptions {
  /** `unix:/path`, `tcp:host:port` or a parsed endpoint. */
  endpoint: string | Endpoint;
  logger: Logger;
  clock?: Clock;
  /** Replaces the socket factory (tests, TLS later). */
  connect?: (endpoint: Endpoint, signal: AbortSignal) => Promise<Duplex>;
  backoff?: BackoffOptions;
  /** Jitter source for backoff. */
  random?: () => number;
  /** Default time a request may wait for a connection plus its reply. */
  requestTimeoutMs?: number;
  probeIntervalMs?: number;
  probeTimeoutMs?: number;
  maxFrameBytes?: number;
  /**
   * Runs on each new connection before queued requests are released: the place to re-create
   * monitors and locks, which the server forgets when a connection drops.
   */
  onConnected?: (connection: JsonRpcConnection) => Promise<void>;
  onDisconnected?: (error: OvsdbError | undefined) => void;
  onNotification?: (method: string, params: unknown[]) => void;
}

export interface RequestOptions {
  /** Overrides SessionOptions.requestTimeoutMs; 0 means no timeout. */
  timeoutMs?: number;
}

interface Waiter {
  resolve: (conn: JsonRpcConnection) => void;
  reject: (err: OvsdbError) => void;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_PROBE_INTERVAL_MS = 5_000;

/**
 * Keeps one JSON-RPC connection to an OVSDB server alive: connects, reconnects with exponential
 * backoff, and lets requests made while disconnected wait (bounded by their timeout) for the next
 * connection. Requests already sent when a connection drops are rejected, never replayed: a
 * transaction may or may not have committed and only the caller can decide what to do.
 */
export class ReconnectingSession {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly endpoint: Endpoint;
  private readonly where: string;
  private readonly abort = new AbortController();
  private connection: JsonRpcConnection | undefined;
  private waiters = new Set<Waiter>();
  private started = false;
  private stopped = false;
  private lastError: OvsdbError | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private sleepTimer: unknown;
  private wake: (() => void) | undefined;
  /** True between socket connect and the end of onConnected: requests must wait for the re-arm. */
  private pendingSetup = false;

  constructor(private readonly options: SessionOptions) {
    this.endpoint = typeof options.endpoint === 'string' ? parseEndpoint(options.endpoint) : options.endpoint;
    this.where = describeEndpoint(this.endpoint);
    this.log = options.logger.child({ component: 'ovsdb-session', endpoint: this.where });
    this.clock = options.clock ?? systemClock;
  }

  /** True once connected and monitors/locks are re-armed; false while (re)connecting. */
  get isConnected(): boolean {
    return this.connection?.isOpen === true && !this.pendingSetup;
  }

  /** Starts connecting in the background; `signal` aborting is the same as stop(). */
  start(signal?: AbortSignal): void {
    if (this.started) return;
    this.started = true;
    if (signal?.aborted) {
      void this.stop();
      return;
    }
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.loopDone = this.run();
  }

  async stop(): Promise<void> {
    if (this.stopped) return this.loopDone;
    this.stopped = true;
    this.abort.abort();
    if (this.sleepTimer !== undefined) this.clock.clearTimeout(this.sleepTimer);
    this.wake?.();
    // In-flight requests reject with OVSDB_DISCONNECTED whose cause says the client was stopped.
    this.connection?.close(new OvsdbClosedError());
    for (const w of this.waiters) w.reject(new OvsdbClosedError());
    this.waiters.clear();
    await this.loopDone;
  }

  /** Resolves with the live connection, waiting up to `timeoutMs` for one. */
  connected(
    timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  ): Promise<JsonRpcConnection> {
    if (this.stopped) return Promise.reject(new OvsdbClosedError());
    const conn = this.connection;
    if (conn?.isOpen && !this.pendingSetup) return Promise.resolve(conn);
    return new Promise((resolve, reject) => {
      let timer: unknown;
      const waiter: Waiter = {
        resolve: (c) => {
          if (timer !== undefined) this.clock.clearTimeout(timer);
          resolve(c);
        },
        reject: (e) => {
          if (timer !== undefined) this.clock.clearTimeout(timer);
          reject(e);
        },
      };
      if (timeoutMs > 0) {
        timer = this.clock.setTimeout(() => {
          this.waiters.delete(waiter);
          reject(
            new OvsdbDisconnectedError(`not connected to ${this.where} after ${timeoutMs} ms`, {
              cause: this.lastError,
            }),
          );
        }, timeoutMs);
      }
      this.waiters.add(waiter);
    });
  }

  /** Sends one request on the current (or next) connection. */
  async request(method: string, params: readonly unknown[], options: RequestOptions = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const started = this.clock.now();
    const conn = await this.connected(timeoutMs);
    const left = timeoutMs > 0 ? Math.max(1, timeoutMs - (this.clock.now() - started)) : 0;
    return conn.request(method, params, left);
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      let conn: JsonRpcConnection | undefined;
      try {
        const connect = this.options.connect ?? connectEndpoint;
        const socket = await connect(this.endpoint, this.abort.signal);
        if (this.stopped) {
          socket.destroy();
          break;
        }
        conn = new JsonRpcConnection(socket, {
          logger: this.log,
          clock: this.clock,
          ...(this.options.maxFrameBytes === undefined ? {} : { maxFrameBytes: this.options.maxFrameBytes }),
          probeIntervalMs: this.options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS,
          ...(this.options.probeTimeoutMs === undefined
            ? {}
            : { probeTimeoutMs: this.options.probeTimeoutMs }),
          ...(this.options.onNotification ? { onNotification: this.options.onNotification } : {}),
        });
        this.connection = conn;
        this.pendingSetup = true;
        await this.options.onConnected?.(conn);
        this.pendingSetup = false;
        if (!conn.isOpen) throw new OvsdbDisconnectedError('connection dropped during setup');
        this.log.info({ attempt }, 'connected to OVSDB server');
        attempt = 0;
        this.lastError = undefined;
        const waiters = [...this.waiters];
        this.waiters.clear();
        for (const w of waiters) w.resolve(conn);
        const reason = await conn.closed;
        this.lastError = reason;
        if (!this.stopped) {
          this.log.warn({ err: reason }, 'lost connection to OVSDB server, reconnecting');
          this.options.onDisconnected?.(reason);
        }
      } catch (err) {
        this.pendingSetup = false;
        conn?.close();
        this.lastError = err as OvsdbError;
        if (this.stopped) break;
        this.log.debug({ err, attempt }, 'OVSDB connect attempt failed');
      }
      if (this.stopped) break;
      await this.sleep(
        backoffDelay(this.options.backoff ?? DEFAULT_BACKOFF, attempt++, this.options.random ?? Math.random),
      );
    }
    this.connection = undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        this.sleepTimer = undefined;
        resolve();
      };
      this.sleepTimer = this.clock.setTimeout(() => this.wake?.(), ms);
    });
  }
}
