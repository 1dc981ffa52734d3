import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import {
  encodeSetAsync,
  encodeSetConfig,
  encodeSetControllerId,
  encodeSetPacketInFormat,
  type FeaturesReply,
} from './codec/basic.js';
import { type BundleFlags, encodeBundleAddInPlace, encodeBundleControl } from './codec/bundle.js';
import { OFPMP, OFPT } from './codec/constants.js';
import { encodeFlowMod, type Flow, type FlowMod, writeFlowModBody } from './codec/flow-mod.js';
import { encodeGroupMod, type GroupMod, writeGroupModBody } from './codec/group-mod.js';
import { encodeMeterMod, type MeterMod } from './codec/meter-mod.js';
import {
  decodeFlowStatsBody,
  decodeGroupDescBody,
  decodeMultipartReply,
  decodeTableStatsBody,
  encodeFlowStatsRequest,
  encodeGroupDescRequest,
  encodeTableStatsRequest,
  type FlowStats,
  type FlowStatsRequest,
  type GroupDesc,
  type TableStats,
} from './codec/multipart.js';
import {
  decodePacketIn2,
  encodePacketOut,
  encodeResume,
  isPacketIn2,
  type PacketIn2,
  type PacketOut,
} from './codec/packet.js';
import {
  isOpenFlowError,
  OfBundleError,
  OfClosedError,
  OfDecodeError,
  OfDisconnectedError,
  OfErrorReply,
  OfTimeoutError,
} from './errors.js';
import { OfConnection, type OfConnectionOptions, type OfTarget } from './transport/connection.js';

const BUNDLE_CHUNK = 2048;

/** One message of a bundle. */
export type BundleEntry = ({ kind: 'flow' } & FlowMod) | ({ kind: 'group' } & GroupMod);

/** Which flows a dump returns: table, cookie under mask, match, output port or group. */
export type DumpFlowsFilter = FlowStatsRequest;

export interface OpenFlowBridgeOptions extends Omit<OfConnectionOptions, 'target'> {
  /** Bridge management socket (`<rundir>/<bridge>.mgmt`) or a TCP endpoint. */
  target: OfTarget;
  /** Controller id for controller(id=N) actions; 0 leaves the switch default. */
  controllerId?: number;
}

/** Narrow interface the agent depends on (a fake implements it in tests). */
export interface OpenFlowBridgeClient {
  addFlows(flows: readonly Flow[]): Promise<void>;
  modifyFlows(flows: readonly Flow[]): Promise<void>;
  deleteFlows(flows: readonly Flow[]): Promise<void>;
  commitBundle(entries: readonly BundleEntry[], flags?: BundleFlags): Promise<void>;
  dumpFlows(filter?: DumpFlowsFilter): Promise<FlowStats[]>;
  installGroup(group: Omit<GroupMod, 'command'>): Promise<void>;
  deleteGroup(groupId: number): Promise<void>;
  installMeter(meter: Omit<MeterMod, 'command'>): Promise<void>;
  deleteMeter(meterId: number): Promise<void>;
  deleteFlowsByCookie(cookie: bigint, cookieMask: bigint, table?: number): Promise<void>;
  sendPacketOut(po: PacketOut): Promise<void>;
  /** Continues a packet paused by controller(pause) (optional: fakes without pause support omit it). */
  resume?(pi: PacketIn2): Promise<void>;
  on(event: 'packetIn', listener: (pi: PacketIn2) => void): this;
  on(event: 'reconnected' | 'disconnected', listener: () => void): this;
}

/**
 * High-level OpenFlow 1.5 client for one OVS bridge.
 *
 * Events: `ready` (reconnect: boolean; the session is set up, after every connection, the first
 * included), `reconnected` (the switch may have restarted: replay flows, groups and meters),
 * `packetIn` (PacketIn2), `disconnected`, `switchError` (OfErrorReply nobody waited for).
 */
export class OpenFlowBridge extends EventEmitter implements OpenFlowBridgeClient {
  readonly conn: OfConnection;
  private readonly log: Logger;
  private readonly controllerId: number;
  private bundleId = 0;
  private started: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private isReady = false;
  private readonly readyWaiters = new Set<{ resolve: () => void; reject: (e: Error) => void }>();

  constructor(options: OpenFlowBridgeOptions) {
    super();
    this.log = options.logger.child({ component: 'openflow-bridge' });
    this.controllerId = options.controllerId ?? 0;
    this.conn = new OfConnection(options);
    this.conn.on('connected', (_f: FeaturesReply, reconnect: boolean) => void this.onConnected(reconnect));
    this.conn.on('disconnected', () => {
      this.isReady = false;
      this.emit('disconnected');
    });
    this.conn.on('switchError', (e: OfErrorReply) => this.emit('switchError', e));
    this.conn.on('message', (msg: Buffer) => this.onAsync(msg));
  }

  get features(): FeaturesReply | undefined {
    return this.conn.features;
  }

  /** Connects, negotiates OpenFlow 1.5 and asks for NXT_PACKET_IN2 delivery. */
  async start(signal?: AbortSignal): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => {
      this.started = { resolve, reject };
    });
    // Setup may fail before we await `ready`; keep that from surfacing as an unhandled rejection.
    ready.catch(() => {});
    try {
      await this.conn.start(signal);
    } catch (err) {
      this.started = undefined;
      throw err;
    }
    await ready;
  }

  async stop(): Promise<void> {
    this.isReady = false;
    const closed = new OfClosedError();
    for (const w of this.readyWaiters) w.reject(closed);
    this.readyWaiters.clear();
    await this.conn.stop();
  }

  /** True once the session is set up on the current connection, until it drops. */
  get ready(): boolean {
    return this.isReady && this.conn.connected;
  }

  /**
   * Resolves when the session is set up (at once if it is): lets callers hold a request across a
   * switch restart instead of failing it. Rejects with OF_TIMEOUT, or OF_CLOSED on stop().
   */
  waitReady(timeoutMs: number): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.readyWaiters.delete(waiter);
        reject(new OfTimeoutError(`no OpenFlow session within ${timeoutMs} ms`));
      }, timeoutMs);
      this.readyWaiters.add(waiter);
    });
  }

  private async onConnected(reconnect: boolean): Promise<void> {
    try {
      const msgs = [
        encodeSetConfig(this.conn.nextXid(), 0, 0xffff),
        encodeSetPacketInFormat(this.conn.nextXid()),
        // Enable every packet-in reason for our role; OVS's default omits some for OF1.5.
        encodeSetAsync(this.conn.nextXid(), { packetInMaster: 0x3f, packetInSlave: 0x3f }),
      ];
      if (this.controllerId) msgs.push(encodeSetControllerId(this.conn.nextXid(), this.controllerId));
      await this.transact(msgs);
      this.isReady = true;
      for (const w of this.readyWaiters) w.resolve();
      this.readyWaiters.clear();
      this.emit('ready', reconnect);
      if (reconnect) {
        this.log.info('reconnected; asking owner to replay state');
        this.emit('reconnected');
      } else {
        this.started?.resolve();
        this.started = undefined;
      }
    } catch (err) {
      this.log.error({ err }, 'switch setup failed');
      this.started?.reject(err as Error);
      this.started = undefined;
      // A session without packet-ins would never be announced, so its owner would never replay:
      // start over on a fresh connection (a lost connection redials by itself).
      if (!(err instanceof OfDisconnectedError || err instanceof OfClosedError)) this.conn.drop();
    }
  }

  private onAsync(msg: Buffer): void {
    if (!isPacketIn2(msg)) return;
    try {
      this.emit('packetIn', decodePacketIn2(msg));
    } catch (err) {
      if (!isOpenFlowError(err)) throw err;
      this.log.warn({ err }, 'bad NXT_PACKET_IN2 ignored');
    }
  }

  /**
   * Sends messages that have no reply on success, then a barrier; rejects with the first
   * OfErrorReply (its messageIndex says which message) if the switch refused any of them.
   */
  async transact(msgs: readonly Buffer[]): Promise<void> {
    const index = new Map<number, number>();
    for (const [i, m] of msgs.entries()) index.set(m.readUInt32BE(4), i);
    const errors: OfErrorReply[] = [];
    const unwatch = this.conn.watchErrors(index.keys(), (e) => {
      e.messageIndex = index.get(e.xid);
      errors.push(e);
    });
    try {
      await this.conn.sendMany(msgs);
      await this.conn.barrier();
    } finally {
      unwatch();
    }
    if (errors.length) throw errors[0]!;
  }

  /**
   * Applies all entries atomically in one OpenFlow bundle: either every message takes effect or
   * none does. On failure throws OfBundleError whose `errors` name the offending messages (by
   * index into `entries`).
   */
  async commitBundle(
    entries: readonly BundleEntry[],
    flags: BundleFlags = { atomic: true, ordered: true },
  ): Promise<void> {
    if (!entries.length) return;
    this.bundleId = (this.bundleId + 1) >>> 0;
    const id = this.bundleId;
    // The adds follow the open without waiting for its reply (one round trip less per bundle); a
    // refused open also gets every add refused, and is reported below.
    const opened = this.conn.request(encodeBundleControl(this.conn.nextXid(), id, 'OPEN_REQUEST', flags));
    opened.catch(() => {});
    const index = new Map<number, number>();
    const errors: OfErrorReply[] = [];
    const xids: number[] = new Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      xids[i] = this.conn.nextXid();
      index.set(xids[i]!, i);
    }
    const unwatch = this.conn.watchErrors(index.keys(), (err) => {
      err.messageIndex = index.get(err.xid);
      errors.push(err);
    });
    try {
      // Encode and write in chunks so the switch starts working while we are still encoding.
      for (let start = 0; start < entries.length; start += BUNDLE_CHUNK) {
        const chunk: Buffer[] = [];
        for (let i = start; i < Math.min(entries.length, start + BUNDLE_CHUNK); i++) {
          const e = entries[i]!;
          chunk.push(
            e.kind === 'flow'
              ? encodeBundleAddInPlace(id, flags, xids[i]!, OFPT.FLOW_MOD, (w) => writeFlowModBody(w, e))
              : encodeBundleAddInPlace(id, flags, xids[i]!, OFPT.GROUP_MOD, (w) => writeGroupModBody(w, e)),
          );
        }
        await this.conn.sendMany(chunk);
        // Let I/O (echo replies, packet-ins) run between chunks of a large bundle.
        if (start + BUNDLE_CHUNK < entries.length)
          await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // OVS validates each add as it arrives but a rejected add does not poison the bundle, so
      // we must learn about rejections before committing to keep the batch all-or-nothing.
      await this.conn.barrier();
      // Answered before the barrier, so settled by now.
      await opened;
      if (errors.length) {
        await this.conn.request(encodeBundleControl(this.conn.nextXid(), id, 'DISCARD_REQUEST', flags));
        throw new OfBundleError(`bundle rejected: ${describe(errors)}`, sorted(errors));
      }
      try {
        await this.conn.request(encodeBundleControl(this.conn.nextXid(), id, 'COMMIT_REQUEST', flags));
      } catch (err) {
        if (err instanceof OfErrorReply) {
          throw new OfBundleError(
            `bundle commit failed: ${describe(errors.length ? errors : [err])}`,
            sorted([...errors, err]),
            {
              cause: err,
            },
          );
        }
        throw err;
      }
    } finally {
      unwatch();
    }
  }

  addFlows(flows: readonly Flow[]): Promise<void> {
    return this.commitBundle(flows.map((f) => ({ kind: 'flow', command: 'ADD', ...f })));
  }

  modifyFlows(flows: readonly Flow[]): Promise<void> {
    return this.commitBundle(flows.map((f) => ({ kind: 'flow', command: 'MODIFY_STRICT', ...f })));
  }

  deleteFlows(flows: readonly Flow[]): Promise<void> {
    return this.commitBundle(flows.map((f) => ({ kind: 'flow', command: 'DELETE_STRICT', ...f })));
  }

  /** Deletes every flow whose cookie matches under `cookieMask` (optionally in one table). */
  deleteFlowsByCookie(cookie: bigint, cookieMask: bigint, table?: number): Promise<void> {
    return this.transact([
      encodeFlowMod(this.conn.nextXid(), {
        command: 'DELETE',
        cookie,
        cookieMask,
        match: [],
        actions: [],
        ...(table === undefined ? {} : { table }),
      }),
    ]);
  }

  /** Flow entries with counters, via OFPMP_FLOW_DESC. */
  async dumpFlows(filter: DumpFlowsFilter = {}): Promise<FlowStats[]> {
    const replies = await this.conn.request(encodeFlowStatsRequest(this.conn.nextXid(), filter));
    const out: FlowStats[] = [];
    for (const r of replies) {
      const mp = decodeMultipartReply(r);
      if (mp.mpType !== OFPMP.FLOW_DESC) throw new OfDecodeError(`unexpected multipart type ${mp.mpType}`);
      out.push(...decodeFlowStatsBody(mp.body));
    }
    return out;
  }

  /** Groups installed on the switch (OFPMP_GROUP_DESC), all or one. */
  async dumpGroups(groupId?: number): Promise<GroupDesc[]> {
    const replies = await this.conn.request(encodeGroupDescRequest(this.conn.nextXid(), groupId));
    return replies.flatMap((r) => decodeGroupDescBody(decodeMultipartReply(r).body));
  }

  async tableStats(): Promise<TableStats[]> {
    const replies = await this.conn.request(encodeTableStatsRequest(this.conn.nextXid()));
    return replies.flatMap((r) => decodeTableStatsBody(decodeMultipartReply(r).body));
  }

  /** Adds the group, or replaces it if it exists (so replays after reconnect are idempotent). */
  async installGroup(group: Omit<GroupMod, 'command'>): Promise<void> {
    try {
      await this.transact([encodeGroupMod(this.conn.nextXid(), { command: 'ADD', ...group })]);
    } catch (err) {
      // OFPGMFC_GROUP_EXISTS: modify in place instead.
      if (!(err instanceof OfErrorReply && err.errType === 6 && err.errCode === 0)) throw err;
      await this.transact([encodeGroupMod(this.conn.nextXid(), { command: 'MODIFY', ...group })]);
    }
  }

  deleteGroup(groupId: number): Promise<void> {
    return this.transact([
      encodeGroupMod(this.conn.nextXid(), { command: 'DELETE', type: 'all', groupId, buckets: [] }),
    ]);
  }

  /** Adds the meter, or modifies it if it exists. */
  async installMeter(meter: Omit<MeterMod, 'command'>): Promise<void> {
    try {
      await this.transact([encodeMeterMod(this.conn.nextXid(), { command: 'ADD', ...meter })]);
    } catch (err) {
      // OFPMMFC_METER_EXISTS: modify in place instead.
      if (!(err instanceof OfErrorReply && err.errType === 12 && err.errCode === 1)) throw err;
      await this.transact([encodeMeterMod(this.conn.nextXid(), { command: 'MODIFY', ...meter })]);
    }
  }

  deleteMeter(meterId: number): Promise<void> {
    return this.transact([encodeMeterMod(this.conn.nextXid(), { command: 'DELETE', meterId, bands: [] })]);
  }

  sendPacketOut(po: PacketOut): Promise<void> {
    return this.transact([encodePacketOut(this.conn.nextXid(), po)]);
  }

  /** Continues the pipeline of a packet that a controller(pause) action sent us. */
  resume(pi: PacketIn2): Promise<void> {
    return this.transact([encodeResume(this.conn.nextXid(), pi)]);
  }

  override on(event: 'packetIn', listener: (pi: PacketIn2) => void): this;
  override on(event: 'reconnected' | 'disconnected', listener: () => void): this;
  override on(event: 'switchError', listener: (err: OfErrorReply) => void): this;
  override on(event: 'ready', listener: (reconnect: boolean) => void): this;
  override on(event: string, listener: (...args: never[]) => void): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }
}

function sorted(errors: OfErrorReply[]): OfErrorReply[] {
  return [...errors].sort((a, b) => (a.messageIndex ?? 1e12) - (b.messageIndex ?? 1e12));
}

function describe(errors: readonly OfErrorReply[]): string {
  return errors
    .slice(0, 5)
    .map((e) => (e.messageIndex === undefined ? e.errName : `message #${e.messageIndex}: ${e.errName}`))
    .join('; ');
}
