import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import {
  decodeError,
  decodeFeaturesReply,
  decodeHello,
  encodeBarrierRequest,
  encodeEchoReply,
  encodeEchoRequest,
  encodeError,
  encodeFeaturesRequest,
  encodeHello,
  type FeaturesReply,
  negotiateVersion,
} from '../codec/basic.js';
import { OFP_VERSION_15, OFPMPF_MORE, OFPT } from '../codec/constants.js';
import { decodeHeader, FrameSplitter, setXid } from '../codec/header.js';
import {
  isOpenFlowError,
  OfClosedError,
  OfDisconnectedError,
  OfErrorReply,
  OfTimeoutError,
  OfVersionMismatchError,
} from '../errors.js';

export type OfTarget = { path: string } | { host: string; port: number };

export interface OfConnectionOptions {
  target: OfTarget;
  logger: Logger;
  /** Idle time before we probe the switch with an echo request. */
  echoIntervalMs?: number;
  /** Time without any message from the switch after which the connection is declared dead. */
  echoTimeoutMs?: number;
  requestTimeoutMs?: number;
  reconnectInitialDelayMs?: number;
  reconnectMaxDelayMs?: number;
  /** Replaceable socket factory (tests); defaults to net.connect. */
  connect?: (target: OfTarget) => Duplex;
  /** Clock for keepalive bookkeeping (tests); defaults to Date.now. */
  now?: () => number;
}

interface Pending {
  resolve: (msgs: Buffer[]) => void;
  reject: (err: Error) => void;
  parts: Buffer[];
  timer: NodeJS.Timeout | undefined;
}

/**
 * Events:
 * - `connected` (features: FeaturesReply, reconnect: boolean): handshake done on a new socket.
 * - `disconnected` (err?: Error): the socket went away; a reconnect is scheduled unless stopped.
 * - `message` (msg: Buffer): a message that is not a reply to a request (packet-in, port status, ...).
 * - `switchError` (err: OfErrorReply): an OFPT_ERROR not claimed by a request or error watcher.
 */
export class OfConnection extends EventEmitter {
  private readonly log: Logger;
  private readonly opts: Required<Omit<OfConnectionOptions, 'target' | 'logger' | 'connect' | 'now'>>;
  private readonly now: () => number;
  private readonly target: OfTarget;
  private readonly connectFn: (target: OfTarget) => Duplex;
  private socket: Duplex | undefined;
  private splitter = new FrameSplitter();
  private xid = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly errorWatchers = new Map<number, (err: OfErrorReply) => void>();
  private stopped = true;
  private ready = false;
  private connectedOnce = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private echoTimer: NodeJS.Timeout | undefined;
  private lastRx = 0;
  private handshake:
    | {
        resolve: (f: FeaturesReply) => void;
        reject: (e: Error) => void;
        stage: 'hello' | 'features';
        xid: number;
      }
    | undefined;
  private firstConnect: { resolve: () => void; reject: (e: Error) => void } | undefined;
  features: FeaturesReply | undefined;

  constructor(options: OfConnectionOptions) {
    super();
    this.log = options.logger.child({ component: 'openflow-connection' });
    this.target = options.target;
    this.now = options.now ?? Date.now;
    this.connectFn =
      options.connect ??
      ((t) => ('path' in t ? net.connect({ path: t.path }) : net.connect({ host: t.host, port: t.port })));
    this.opts = {
      echoIntervalMs: options.echoIntervalMs ?? 5_000,
      echoTimeoutMs: options.echoTimeoutMs ?? 15_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      reconnectInitialDelayMs: options.reconnectInitialDelayMs ?? 100,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? 5_000,
    };
  }

  get connected(): boolean {
    return this.ready;
  }

  /** Connects and completes the hello/features handshake; keeps reconnecting until stopped. */
  start(signal?: AbortSignal): Promise<void> {
    if (!this.stopped) throw new Error('OfConnection already started');
    this.stopped = false;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const p = new Promise<void>((resolve, reject) => {
      this.firstConnect = { resolve, reject };
    });
    this.dial();
    return p;
  }

  /** Idempotent: closes the socket, stops reconnecting, fails pending requests with OF_CLOSED. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.echoTimer);
    const err = new OfClosedError();
    this.failAll(err);
    this.firstConnect?.reject(err);
    this.firstConnect = undefined;
    const s = this.socket;
    this.socket = undefined;
    this.ready = false;
    if (s && !s.destroyed) {
      await new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        s.destroy();
      });
    }
  }

  /** Closes the current connection (the switch misbehaved); a redial follows unless stopped. */
  drop(): void {
    this.socket?.destroy();
  }

  nextXid(): number {
    this.xid = (this.xid + 1) >>> 0;
    if (this.xid === 0) this.xid = 1;
    return this.xid;
  }

  /** Writes one message. Returns false when the socket buffer is full (see `drain`). */
  send(msg: Buffer): boolean {
    const s = this.socket;
    if (!s || !this.ready) throw new OfDisconnectedError('not connected to the switch');
    return s.write(msg);
  }

  /**
   * Writes many messages, honouring socket back-pressure, so that 100k-flow bundles neither
   * buffer unboundedly in memory nor block the event loop.
   */
  async sendMany(msgs: Iterable<Buffer>): Promise<void> {
    const s = this.socket;
    if (!s || !this.ready) throw new OfDisconnectedError('not connected to the switch');
    let batch: Buffer[] = [];
    let size = 0;
    const flush = async (): Promise<void> => {
      if (!batch.length) return;
      const chunk = batch.length === 1 ? batch[0]! : Buffer.concat(batch, size);
      batch = [];
      size = 0;
      if (!s.write(chunk)) await this.drain(s);
    };
    for (const m of msgs) {
      batch.push(m);
      size += m.length;
      if (size >= 256 * 1024) await flush();
    }
    await flush();
  }

  private drain(s: Duplex): Promise<void> {
    return new Promise((resolve, reject) => {
      const onDrain = (): void => {
        s.off('close', onClose);
        resolve();
      };
      const onClose = (): void => {
        s.off('drain', onDrain);
        reject(new OfDisconnectedError('connection closed while writing'));
      };
      s.once('drain', onDrain);
      s.once('close', onClose);
    });
  }

  /**
   * Sends a request and resolves with its reply (all parts, for multipart replies). An OFPT_ERROR
   * carrying the same xid rejects with OfErrorReply.
   */
  request(msg: Buffer, timeoutMs = this.opts.requestTimeoutMs): Promise<Buffer[]> {
    const xid = decodeHeader(msg).xid;
    return new Promise<Buffer[]>((resolve, reject) => {
      const p: Pending = { resolve, reject, parts: [], timer: undefined };
      p.timer = setTimeout(() => {
        this.pending.delete(xid);
        reject(new OfTimeoutError(`no reply to xid ${xid} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(xid, p);
      try {
        this.send(msg);
      } catch (err) {
        clearTimeout(p.timer);
        this.pending.delete(xid);
        reject(err);
      }
    });
  }

  /** Round trip through the switch: every message sent before has been processed when this resolves. */
  async barrier(): Promise<void> {
    await this.request(encodeBarrierRequest(this.nextXid()));
  }

  /**
   * Routes OFPT_ERRORs whose offending xid is in `xids` to `onError` instead of `switchError`
   * (for messages that have no reply on success, such as flow_mod or bundle adds). Returns a
   * function that removes the watch.
   */
  watchErrors(xids: Iterable<number>, onError: (err: OfErrorReply) => void): () => void {
    const list = [...xids];
    for (const x of list) this.errorWatchers.set(x, onError);
    return () => {
      for (const x of list) if (this.errorWatchers.get(x) === onError) this.errorWatchers.delete(x);
    };
  }

  private dial(): void {
    if (this.stopped) return;
    const s = this.connectFn(this.target);
    this.socket = s;
    this.splitter = new FrameSplitter();
    this.ready = false;
    const onConnect = (): void => {
      this.log.debug({ target: this.target }, 'socket connected, sending hello');
      this.lastRx = this.now();
      const helloXid = this.nextXid();
      new Promise<FeaturesReply>((resolve, reject) => {
        this.handshake = { resolve, reject, stage: 'hello', xid: helloXid };
        s.write(encodeHello(helloXid));
      }).then(
        (features) => this.onHandshakeDone(s, features),
        (err: Error) => {
          this.log.warn({ err }, 'OpenFlow handshake failed');
          if (err instanceof OfVersionMismatchError) this.firstConnect?.reject(err);
          s.destroy();
        },
      );
    };
    s.once('connect', onConnect);
    s.on('data', (chunk: Buffer) => this.onData(s, chunk));
    s.on('error', (err) => this.log.debug({ err }, 'socket error'));
    s.once('close', () => this.onClose(s));
  }

  private onHandshakeDone(s: Duplex, features: FeaturesReply): void {
    if (s !== this.socket) return;
    this.features = features;
    this.ready = true;
    this.attempt = 0;
    const reconnect = this.connectedOnce;
    this.connectedOnce = true;
    this.log.info({ datapathId: features.datapathId.toString(16), reconnect }, 'connected to switch');
    clearInterval(this.echoTimer);
    this.echoTimer = setInterval(
      () => this.keepalive(s),
      Math.max(10, Math.floor(this.opts.echoIntervalMs / 2)),
    );
    this.echoTimer.unref();
    this.emit('connected', features, reconnect);
    const fc = this.firstConnect;
    this.firstConnect = undefined;
    fc?.resolve();
  }

  private keepalive(s: Duplex): void {
    const idle = this.now() - this.lastRx;
    if (idle >= this.opts.echoTimeoutMs) {
      this.log.warn({ idleMs: idle }, 'switch stopped answering echo requests; reconnecting');
      s.destroy(new OfTimeoutError('echo timeout'));
      return;
    }
    if (idle >= this.opts.echoIntervalMs && this.ready) {
      s.write(encodeEchoRequest(this.nextXid()));
    }
  }

  private onData(s: Duplex, chunk: Buffer): void {
    if (s !== this.socket) return;
    this.lastRx = this.now();
    let frames: Buffer[];
    try {
      frames = this.splitter.push(chunk);
    } catch (err) {
      this.log.error({ err }, 'unframeable data from switch; dropping connection');
      s.destroy();
      return;
    }
    for (const f of frames) {
      try {
        this.onMessage(s, f);
      } catch (err) {
        if (!isOpenFlowError(err)) throw err;
        this.log.warn({ err, type: f[1] }, 'undecodable message from switch ignored');
      }
    }
  }

  private onMessage(s: Duplex, msg: Buffer): void {
    const h = decodeHeader(msg);
    const hs = this.handshake;
    if (hs) {
      if (hs.stage === 'hello') {
        if (h.type === OFPT.HELLO) {
          const version = negotiateVersion(decodeHello(msg));
          if (version !== OFP_VERSION_15) {
            s.write(encodeError(h.xid, 0, 0, Buffer.from('We support only OpenFlow 1.5')));
            this.handshake = undefined;
            hs.reject(
              new OfVersionMismatchError(`switch does not speak OpenFlow 1.5 (hello version ${h.version})`),
            );
            return;
          }
          hs.stage = 'features';
          hs.xid = this.nextXid();
          s.write(encodeFeaturesRequest(hs.xid));
          return;
        }
      } else if (h.type === OFPT.FEATURES_REPLY && h.xid === hs.xid) {
        this.handshake = undefined;
        hs.resolve(decodeFeaturesReply(msg));
        return;
      }
      if (h.type === OFPT.ERROR) {
        this.handshake = undefined;
        const e = decodeError(msg);
        hs.reject(new OfVersionMismatchError(`switch refused the handshake: ${e.name}`));
        return;
      }
    }
    switch (h.type) {
      case OFPT.ECHO_REQUEST:
        s.write(encodeEchoReply(h.xid, msg.subarray(8, h.length)));
        return;
      case OFPT.ECHO_REPLY:
        return;
      case OFPT.ERROR: {
        const e = decodeError(msg);
        this.log.debug(
          { xid: h.xid, offendingXid: e.offendingXid, offendingType: e.offendingType, error: e.name },
          'error from switch',
        );
        const err = new OfErrorReply(e.errType, e.errCode, e.offendingXid ?? h.xid, e.name);
        const p = this.pending.get(h.xid);
        if (p) {
          this.pending.delete(h.xid);
          clearTimeout(p.timer);
          p.reject(err);
          return;
        }
        const w =
          this.errorWatchers.get(h.xid) ??
          (e.offendingXid !== undefined ? this.errorWatchers.get(e.offendingXid) : undefined);
        if (w) {
          w(err);
          return;
        }
        this.log.warn({ xid: h.xid, error: e.name }, 'unsolicited error from switch');
        this.emit('switchError', err);
        return;
      }
      default:
        break;
    }
    const p = this.pending.get(h.xid);
    if (p && h.type !== OFPT.PACKET_IN && h.type !== OFPT.EXPERIMENTER) {
      p.parts.push(msg);
      const more =
        h.type === OFPT.MULTIPART_REPLY && msg.length >= 12 && (msg.readUInt16BE(10) & OFPMPF_MORE) !== 0;
      if (more) return;
      this.pending.delete(h.xid);
      clearTimeout(p.timer);
      p.resolve(p.parts);
      return;
    }
    if (p && h.type === OFPT.EXPERIMENTER && msg.length >= 16 && msg.readUInt32BE(12) !== 30) {
      // Nicira replies (other than async PACKET_IN2) answer the request with the same xid.
      this.pending.delete(h.xid);
      clearTimeout(p.timer);
      p.resolve([msg]);
      return;
    }
    this.emit('message', msg);
  }

  private failAll(err: Error): void {
    for (const [xid, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(xid);
    }
    // Watchers belong to batches that also await a request (barrier/commit), which fails above.
    this.errorWatchers.clear();
  }

  private onClose(s: Duplex): void {
    if (s !== this.socket) return;
    const wasReady = this.ready;
    this.ready = false;
    this.socket = undefined;
    clearInterval(this.echoTimer);
    if (this.handshake) {
      this.handshake.reject(new OfDisconnectedError('connection closed during handshake'));
      this.handshake = undefined;
    }
    this.failAll(new OfDisconnectedError('connection to the switch was lost'));
    if (this.stopped) return;
    if (wasReady) this.emit('disconnected');
    const delay = Math.min(
      this.opts.reconnectMaxDelayMs,
      this.opts.reconnectInitialDelayMs * 2 ** this.attempt,
    );
    this.attempt = Math.min(this.attempt + 1, 30);
    this.log.info({ delayMs: delay, attempt: this.attempt }, 'reconnecting to switch');
    this.reconnectTimer = setTimeout(() => this.dial(), delay);
  }
}

/** Re-stamps `msg` with a fresh xid from `conn`, returning the xid. */
export function stampXid(conn: OfConnection, msg: Buffer): number {
  const xid = conn.nextXid();
  setXid(msg, xid);
  return xid;
}
