import { connect, type Socket } from 'node:net';
import {
  decodeError,
  decodeFlowStatsBody,
  decodeHeader,
  decodeHello,
  decodeMultipartReply,
  encodeBarrierRequest,
  encodeBundleAdd,
  encodeBundleControl,
  encodeEchoReply,
  encodeFlowMod,
  encodeFlowStatsRequest,
  encodeHello,
  type FlowMod,
  type FlowStats,
  type FlowStatsRequest,
  FrameSplitter,
  negotiateVersion,
  OFP_VERSION_15,
  OFPT,
} from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';

/**
 * What the agent needs from the switch: atomic batches of flow changes, flow dumps, and a signal
 * when a (new) connection is up so it can replay. Tests can pass a fake.
 */
export interface FlowSwitch {
  readonly connected: boolean;
  /** Applies all changes or none (an OpenFlow atomic bundle). */
  bundle(mods: readonly FlowMod[]): Promise<void>;
  dumpFlows(request?: FlowStatsRequest): Promise<FlowStats[]>;
  /** Called after every successful handshake, the first one included. */
  onConnected(listener: (generation: number) => void): () => void;
  waitConnected(timeoutMs: number): Promise<void>;
}

export interface OfConnectionOptions {
  /** The bridge's management socket, e.g. /var/run/openvswitch/br-int.mgmt. */
  socketPath: string;
  logger: Logger;
  reconnectDelayMs?: number;
  requestTimeoutMs?: number;
}

interface Pending {
  resolve: (msgs: Buffer[]) => void;
  reject: (err: Error) => void;
  parts: Buffer[];
  timer: NodeJS.Timeout;
}

/**
 * A minimal OpenFlow 1.5 session with ovs-vswitchd over the bridge management socket: hello, echo,
 * atomic bundles, flow dumps, and reconnection (ovs-vswitchd restarts drop the socket; the new
 * process starts with no flows, which is why listeners get told about every new connection).
 * Uses the pure codecs of @antrea-ts/openflow.
 */
export class OfConnection implements FlowSwitch {
  private readonly log: Logger;
  private readonly reconnectDelayMs: number;
  private readonly requestTimeoutMs: number;
  private socket: Socket | undefined;
  private ready = false;
  private stopped = true;
  private nextXid = 1;
  private nextBundle = 1;
  private generation = 0;
  private readonly pending = new Map<number, Pending>();
  /** Errors that name a bundled message's xid, collected until the bundle's commit answers. */
  private readonly bundleErrors = new Map<number, string>();
  private readonly listeners = new Set<(generation: number) => void>();
  private readonly readyWaiters = new Set<() => void>();
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: OfConnectionOptions) {
    this.log = options.logger.child({ component: 'openflow-connection', socket: options.socketPath });
    this.reconnectDelayMs = options.reconnectDelayMs ?? 200;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  }

  get connected(): boolean {
    return this.ready;
  }

  start(signal?: AbortSignal): void {
    if (!this.stopped) return;
    this.stopped = false;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.dial();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.socket?.destroy();
    this.failAll(new AgentError('AGENT_STOPPED', 'OpenFlow connection stopped'));
  }

  onConnected(listener: (generation: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  waitConnected(timeoutMs: number): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.readyWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.readyWaiters.delete(done);
        reject(new AgentError('AGENT_OPENFLOW_FAILED', `no OpenFlow connection within ${timeoutMs} ms`));
      }, timeoutMs);
      this.readyWaiters.add(done);
    });
  }

  async bundle(mods: readonly FlowMod[]): Promise<void> {
    if (mods.length === 0) return;
    // During an ovs-vswitchd restart, wait for the new connection (the flow replay it triggers
    // follows this bundle) rather than failing a Pod's ADD.
    if (!this.ready && !this.stopped) await this.waitConnected(this.requestTimeoutMs);
    const socket = this.requireSocket();
    const bundleId = this.nextBundle++ >>> 0;
    const flags = { atomic: true };
    const openXid = this.xid();
    const open = this.expect(openXid);
    const addXids: number[] = [];
    const chunks: Buffer[] = [encodeBundleControl(openXid, bundleId, 'OPEN_REQUEST', flags)];
    for (const mod of mods) {
      const xid = this.xid();
      addXids.push(xid);
      this.bundleErrors.delete(xid);
      chunks.push(encodeBundleAdd(bundleId, flags, encodeFlowMod(xid, mod)));
    }
    // OVS answers a bad bundled message with an error and leaves it out of the bundle, so a commit
    // would apply the rest. A barrier after the adds tells us every add was checked: discard on any error.
    const barrierXid = this.xid();
    const barrier = this.expect(barrierXid);
    chunks.push(encodeBarrierRequest(barrierXid));
    // One write: ovs-vswitchd reads the whole bundle without waiting on us between messages.
    socket.write(Buffer.concat(chunks));
    const fail = (err: unknown): never => {
      const details = addXids.flatMap((x, i) => {
        const e = this.bundleErrors.get(x);
        return e ? [`flow ${i}: ${e}`] : [];
      });
      throw new AgentError(
        'AGENT_OPENFLOW_FAILED',
        `bundle of ${mods.length} flow mods failed: ${(err as Error).message}${details.length ? ` (${details.slice(0, 5).join('; ')})` : ''}`,
        { cause: err },
      );
    };
    try {
      await open;
      await barrier;
      if (addXids.some((x) => this.bundleErrors.has(x))) {
        const discardXid = this.xid();
        const discard = this.expect(discardXid);
        socket.write(encodeBundleControl(discardXid, bundleId, 'DISCARD_REQUEST', flags));
        await discard.catch(() => undefined);
        fail(new Error('switch refused bundled flow mods; bundle discarded'));
      }
      const commitXid = this.xid();
      const commit = this.expect(commitXid);
      socket.write(encodeBundleControl(commitXid, bundleId, 'COMMIT_REQUEST', flags));
      await commit;
    } catch (err) {
      if (AgentError.is(err) && err.message.startsWith('bundle of')) throw err;
      fail(err);
    } finally {
      for (const x of addXids) this.bundleErrors.delete(x);
    }
  }

  async dumpFlows(request: FlowStatsRequest = {}): Promise<FlowStats[]> {
    if (!this.ready && !this.stopped) await this.waitConnected(this.requestTimeoutMs);
    const socket = this.requireSocket();
    const xid = this.xid();
    const reply = this.expect(xid);
    socket.write(encodeFlowStatsRequest(xid, request));
    const parts = await reply;
    return parts.flatMap((msg) => decodeFlowStatsBody(decodeMultipartReply(msg).body));
  }

  private requireSocket(): Socket {
    if (!this.ready || !this.socket) {
      throw new AgentError('AGENT_OPENFLOW_FAILED', 'not connected to ovs-vswitchd');
    }
    return this.socket;
  }

  private xid(): number {
    const x = this.nextXid;
    this.nextXid = this.nextXid >= 0x7fffffff ? 1 : this.nextXid + 1;
    return x;
  }

  private expect(xid: number): Promise<Buffer[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(xid);
        reject(
          new AgentError('AGENT_OPENFLOW_FAILED', `no reply to xid ${xid} in ${this.requestTimeoutMs} ms`),
        );
      }, this.requestTimeoutMs);
      this.pending.set(xid, { resolve, reject, parts: [], timer });
    });
  }

  private dial(): void {
    if (this.stopped) return;
    const socket = connect(this.options.socketPath);
    this.socket = socket;
    const splitter = new FrameSplitter();
    socket.on('connect', () => {
      socket.write(encodeHello(this.xid(), [OFP_VERSION_15]));
    });
    socket.on('data', (chunk) => {
      try {
        for (const msg of splitter.push(chunk)) this.onMessage(socket, msg);
      } catch (err) {
        this.log.warn({ err }, 'bad OpenFlow frame; reconnecting');
        socket.destroy();
      }
    });
    socket.on('error', (err) => {
      if (this.ready) this.log.warn({ err: err.message }, 'OpenFlow connection error');
      else this.log.debug({ err: err.message }, 'OpenFlow connect failed');
    });
    socket.on('close', () => {
      const wasReady = this.ready;
      this.ready = false;
      if (this.socket === socket) this.socket = undefined;
      this.failAll(new AgentError('AGENT_OPENFLOW_FAILED', 'OpenFlow connection closed'));
      if (wasReady) this.log.warn('OpenFlow connection lost; reconnecting');
      if (!this.stopped) this.reconnectTimer = setTimeout(() => this.dial(), this.reconnectDelayMs);
    });
  }

  private onMessage(socket: Socket, msg: Buffer): void {
    const h = decodeHeader(msg);
    switch (h.type) {
      case OFPT.HELLO: {
        const hello = decodeHello(msg);
        if (negotiateVersion(hello) === undefined) {
          this.log.error({ version: hello.version }, 'switch does not speak OpenFlow 1.5');
          socket.destroy();
          return;
        }
        this.ready = true;
        this.generation++;
        this.log.info({ generation: this.generation }, 'OpenFlow connection up');
        for (const w of [...this.readyWaiters]) w();
        for (const l of this.listeners) l(this.generation);
        return;
      }
      case OFPT.ECHO_REQUEST:
        socket.write(encodeEchoReply(h.xid, msg.subarray(8, h.length)));
        return;
      case OFPT.ERROR: {
        const e = decodeError(msg);
        const p = this.pending.get(h.xid);
        if (p) {
          this.settle(h.xid);
          p.reject(new AgentError('AGENT_OPENFLOW_FAILED', `switch error ${e.name}`));
        } else {
          this.bundleErrors.set(h.xid, e.name);
        }
        return;
      }
      case OFPT.BUNDLE_CONTROL:
      case OFPT.BARRIER_REPLY: {
        const p = this.pending.get(h.xid);
        if (p) {
          this.settle(h.xid);
          p.resolve([msg]);
        }
        return;
      }
      case OFPT.MULTIPART_REPLY: {
        const p = this.pending.get(h.xid);
        if (!p) return;
        p.parts.push(Buffer.from(msg));
        if (!decodeMultipartReply(msg).more) {
          this.settle(h.xid);
          p.resolve(p.parts);
        }
        return;
      }
      default:
        // Port status, packet-ins and the like: not used by the connectivity half.
        return;
    }
  }

  private settle(xid: number): void {
    const p = this.pending.get(xid);
    if (p) clearTimeout(p.timer);
    this.pending.delete(xid);
  }

  private failAll(err: Error): void {
    for (const [xid, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(xid);
      p.reject(err);
    }
  }
}
