import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { FrameParser } from '../codec/frame-parser.js';
import {
  classifyMessage,
  describeRpcError,
  encodeRequest,
  encodeResponse,
  type JsonRpcMessage,
} from '../codec/jsonrpc.js';
import {
  OvsdbDisconnectedError,
  type OvsdbError,
  type OvsdbProtocolError,
  OvsdbRpcError,
  OvsdbTimeoutError,
} from '../errors.js';
import { type Clock, systemClock } from './clock.js';

export interface ConnectionOptions {
  logger: Logger;
  clock?: Clock;
  maxFrameBytes?: number;
  /**
   * Send our own echo after this long with nothing received, to find a dead peer that never
   * closed the socket (host gone, process stopped). 0 disables.
   */
  probeIntervalMs?: number;
  /** How long the peer has to answer that echo before the connection is declared dead. */
  probeTimeoutMs?: number;
  onNotification?: (method: string, params: unknown[]) => void;
  /** Called once, after every pending request was rejected. `error` is undefined for a local close(). */
  onClose?: (error: OvsdbError | undefined) => void;
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: OvsdbError) => void;
  timer: unknown;
}

/**
 * One JSON-RPC session over one socket: request ids, replies, server echo probes and our own
 * keepalive. It never reconnects; when the socket goes, every pending request is rejected with
 * OVSDB_DISCONNECTED so no caller waits forever.
 */
export class JsonRpcConnection {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly parser: FrameParser;
  private readonly pending = new Map<number, Pending>();
  private readonly probeIntervalMs: number;
  private readonly probeTimeoutMs: number;
  private nextId = 1;
  private lastReceived: number;
  private probeTimer: unknown;
  private probing = false;
  private closeError: OvsdbError | undefined;
  private isClosed = false;
  /** Resolves when the connection is closed, with the reason (undefined for a local close). */
  readonly closed: Promise<OvsdbError | undefined>;
  private resolveClosed!: (error: OvsdbError | undefined) => void;

  constructor(
    private readonly socket: Duplex,
    private readonly options: ConnectionOptions,
  ) {
    this.log = options.logger.child({ component: 'ovsdb-connection' });
    this.clock = options.clock ?? systemClock;
    this.parser = new FrameParser(
      options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes },
    );
    this.probeIntervalMs = options.probeIntervalMs ?? 0;
    this.probeTimeoutMs = options.probeTimeoutMs ?? this.probeIntervalMs;
    this.lastReceived = this.clock.now();
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', (cause: Error) =>
      this.shutdown(new OvsdbDisconnectedError(`socket error: ${cause.message}`, { cause })),
    );
    socket.on('close', () =>
      this.shutdown(this.closeError ?? new OvsdbDisconnectedError('connection closed by peer')),
    );
    this.scheduleProbe();
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  /** Sends a request; resolves with `result` or rejects with a coded error. */
  request(method: string, params: readonly unknown[], timeoutMs?: number): Promise<unknown> {
    if (this.isClosed) {
      return Promise.reject(
        new OvsdbDisconnectedError(`cannot send ${method}: connection is closed`, { cause: this.closeError }),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs && timeoutMs > 0
          ? this.clock.setTimeout(() => {
              if (this.pending.delete(id)) {
                reject(new OvsdbTimeoutError(`no reply to ${method} within ${timeoutMs} ms`));
              }
            }, timeoutMs)
          : undefined;
      this.pending.set(id, { method, resolve, reject, timer });
      this.write(encodeRequest(method, params, id));
    });
  }

  /** Closes the socket; pending requests reject with OVSDB_DISCONNECTED (or `reason`). */
  close(reason?: OvsdbError): void {
    if (this.isClosed) return;
    this.closeError = reason;
    this.socket.destroy();
    this.shutdown(reason);
  }

  private write(bytes: Uint8Array): void {
    // Backpressure is not tracked: OVSDB requests are small and replies gate the next ones.
    this.socket.write(bytes);
  }

  private onData(chunk: Buffer): void {
    this.lastReceived = this.clock.now();
    const { messages, error } = this.parser.push(chunk);
    for (const json of messages) {
      if (this.isClosed) return;
      let msg: JsonRpcMessage;
      try {
        msg = classifyMessage(json);
      } catch (err) {
        this.close(err as OvsdbProtocolError);
        return;
      }
      this.dispatch(msg);
    }
    if (error) {
      this.log.warn({ err: error }, 'unparseable data from OVSDB server, closing connection');
      this.close(error);
    }
  }

  private onEnd(): void {
    const truncated = this.parser.end();
    if (truncated) this.closeError = truncated;
  }

  private dispatch(msg: JsonRpcMessage): void {
    switch (msg.kind) {
      case 'response': {
        const id = typeof msg.id === 'number' ? msg.id : Number.NaN;
        const p = this.pending.get(id);
        if (!p) {
          // A reply that arrives after its request timed out; harmless.
          this.log.debug({ id: msg.id }, 'reply for unknown request id');
          return;
        }
        this.pending.delete(id);
        if (p.timer !== undefined) this.clock.clearTimeout(p.timer);
        if (msg.error !== null) {
          const { error, details } = describeRpcError(msg.error);
          p.reject(new OvsdbRpcError(p.method, error, details));
        } else {
          p.resolve(msg.result);
        }
        return;
      }
      case 'request':
        // ovsdb-server's inactivity probe: answer with the same params (RFC 7047 4.1.11).
        if (msg.method === 'echo') this.write(encodeResponse(msg.id, msg.params));
        else this.write(encodeResponse(msg.id, null, { error: 'unknown method', details: msg.method }));
        return;
      case 'notification':
        try {
          this.options.onNotification?.(msg.method, msg.params);
        } catch (err) {
          this.log.error({ err, method: msg.method }, 'notification handler threw');
        }
        return;
    }
  }

  private scheduleProbe(): void {
    if (this.probeIntervalMs <= 0 || this.isClosed) return;
    this.probeTimer = this.clock.setTimeout(() => this.maybeProbe(), this.probeIntervalMs);
  }

  private maybeProbe(): void {
    if (this.isClosed || this.probing) return;
    const idle = this.clock.now() - this.lastReceived;
    if (idle < this.probeIntervalMs) {
      this.probeTimer = this.clock.setTimeout(() => this.maybeProbe(), this.probeIntervalMs - idle);
      return;
    }
    this.probing = true;
    this.request('echo', ['antrea-ts-probe'], this.probeTimeoutMs).then(
      () => {
        this.probing = false;
        this.scheduleProbe();
      },
      (err: OvsdbError) => {
        this.probing = false;
        if (err.code === 'OVSDB_TIMEOUT') {
          this.log.warn(
            { timeoutMs: this.probeTimeoutMs },
            'OVSDB peer did not answer echo, closing connection',
          );
          this.close(new OvsdbTimeoutError(`peer did not answer echo within ${this.probeTimeoutMs} ms`));
        }
      },
    );
  }

  private shutdown(reason: OvsdbError | undefined): void {
    if (this.isClosed && this.pending.size === 0) {
      return;
    }
    const first = !this.isClosed;
    this.isClosed = true;
    if (this.probeTimer !== undefined) this.clock.clearTimeout(this.probeTimer);
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      if (p.timer !== undefined) this.clock.clearTimeout(p.timer);
      p.reject(
        new OvsdbDisconnectedError(`connection lost while waiting for the ${p.method} reply`, {
          cause: reason,
        }),
      );
    }
    if (first) {
      this.socket.destroy();
      this.resolveClosed(reason);
      this.options.onClose?.(reason);
    }
  }
}
