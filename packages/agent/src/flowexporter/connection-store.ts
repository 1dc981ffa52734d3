import { FlowEndReason } from '@antrea-ts/ipfix';
import {
  type Connection,
  connectionKey,
  hasActivity,
  isDying,
  type PodRef,
  type PolicyRuleRef,
} from './connection.js';
import type { ConntrackEntry } from './conntrack-dump.js';
import { ExpireQueue } from './expire-queue.js';

/** Where a new connection's metadata comes from (the agent's interface store, proxier, policies). */
export interface ConnectionMetadata {
  podByIp(ip: string): PodRef | undefined;
  /** The Service port behind `ip:port/protocol`, as `<namespace>/<name>[:<port name>]`. */
  servicePortName(ip: string, port: number, protocol: number): string | undefined;
  /** The rule a ct_label conjunction id stands for. */
  ruleOfConjId(id: number): Omit<PolicyRuleRef, 'action'> | undefined;
}

export interface ConnectionStoreOptions {
  readonly activeTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** A connection gone from conntrack and not exported for this long is dropped (Antrea's staleConnectionTimeout). */
  readonly staleTimeoutMs: number;
  readonly metadata: ConnectionMetadata;
  /** ct_mark bit set on Service connections (ServiceCTMark). */
  readonly serviceMarkBit: number;
  /** IANA protocol numbers to keep; none or empty: all (Antrea's protocolFilter). */
  readonly protocols?: readonly number[];
}

/** A record to export: the connection as it was when its deadline came, and why it is exported. */
export interface ExpiredFlow {
  readonly conn: Readonly<Connection>;
  readonly endReason: number;
}

const ALLOW = 1;
const low32 = (v: bigint): number => Number(v & 0xffffffffn);

/**
 * Connections of local Pods from successive conntrack polls (Antrea's ConntrackConnectionStore):
 * each poll refreshes counters and state; each export pops the connections whose active or idle
 * deadline passed. Active connections go back in the queue with a new active deadline, idle and
 * closed ones leave it; closed ones and those gone stale leave the store on the next poll.
 */
export class ConnectionStore {
  private readonly conns = new Map<string, Connection>();
  private readonly queue = new ExpireQueue<Connection>();

  constructor(private readonly o: ConnectionStoreOptions) {}

  get size(): number {
    return this.conns.size;
  }

  get(key: string): Readonly<Connection> | undefined {
    return this.conns.get(key);
  }

  /** The earliest export deadline, or undefined when nothing waits. */
  nextDueMs(): number | undefined {
    return this.queue.nextDueMs();
  }

  /** One poll's entries (already filtered to Antrea's zone): `sweep`, then `apply` them all. */
  update(entries: readonly ConntrackEntry[], nowMs: number): void {
    this.sweep(nowMs);
    this.apply(entries, nowMs);
  }

  /**
   * A poll's first step: drops the connections the previous poll did not see that are done
   * (exported as ended) or stale, and marks the rest unseen until `apply` sees them again.
   */
  sweep(nowMs: number): void {
    for (const [key, c] of this.conns) {
      if (c.isPresent) c.isPresent = false;
      else if (c.readyToDelete || nowMs - c.lastExportMs >= this.o.staleTimeoutMs) {
        this.queue.remove(c);
        this.conns.delete(key);
      }
    }
  }

  /** Some of a poll's entries, after its `sweep` (a large poll can be applied in slices). */
  apply(entries: readonly ConntrackEntry[], nowMs: number): void {
    for (const e of entries) {
      const key = connectionKey(e);
      const c = this.conns.get(key);
      if (c) this.refresh(c, e, nowMs);
      else this.add(key, e, nowMs);
    }
  }

  /** Pops up to `max` connections due at `nowMs`, oldest deadline first. */
  expire(nowMs: number, max: number): ExpiredFlow[] {
    const out: ExpiredFlow[] = [];
    while (out.length < max) {
      const c = this.queue.popDue(nowMs);
      if (!c) break;
      const dying = isDying(c);
      // Idle: the idle deadline passed, or the last poll saw nothing new since the last record.
      const idle = c.idleExpireMs <= nowMs || !c.isActive;
      out.push({
        conn: { ...c },
        endReason: dying
          ? FlowEndReason.endOfFlow
          : idle
            ? FlowEndReason.idleTimeout
            : FlowEndReason.activeTimeout,
      });
      c.lastExportMs = nowMs;
      if (dying) c.readyToDelete = true;
      if (idle) c.isActive = false;
      if (c.readyToDelete || !c.isActive) continue;
      c.prevPackets = c.origPackets;
      c.prevBytes = c.origBytes;
      c.prevReplyPackets = c.replyPackets;
      c.prevReplyBytes = c.replyBytes;
      c.prevTcpState = c.tcpState;
      c.activeExpireMs = nowMs + this.o.activeTimeoutMs;
      this.queue.push(c);
    }
    return out;
  }

  private refresh(c: Connection, e: ConntrackEntry, nowMs: number): void {
    c.isPresent = true;
    if (isDying(c)) return; // its last record is on its way
    c.stopMs = e.stopMs ?? nowMs;
    c.origPackets = e.orig.packets;
    c.origBytes = e.orig.bytes;
    c.replyPackets = e.reply.packets;
    c.replyBytes = e.reply.bytes;
    c.tcpState = e.tcpState;
    c.status = e.status;
    c.isActive = hasActivity(c);
    if (!c.isActive) return;
    if (this.queue.has(c)) {
      c.idleExpireMs = nowMs + this.o.idleTimeoutMs;
      this.queue.fix(c);
    } else {
      // Idle before, active again: back in the queue with fresh deadlines.
      c.activeExpireMs = nowMs + this.o.activeTimeoutMs;
      c.idleExpireMs = nowMs + this.o.idleTimeoutMs;
      this.queue.push(c);
    }
  }

  private add(key: string, e: ConntrackEntry, nowMs: number): void {
    if (this.o.protocols?.length && !this.o.protocols.includes(e.protocol)) return;
    const md = this.o.metadata;
    const srcPod = md.podByIp(e.orig.src);
    const dstPod = md.podByIp(e.reply.src);
    // Only connections of this Node's Pods are Antrea's to report.
    if (!srcPod && !dstPod) return;
    const isService = (e.mark & this.o.serviceMarkBit) !== 0;
    const rule = (id: number): PolicyRuleRef | undefined => {
      const r = id ? md.ruleOfConjId(id) : undefined;
      return r && { ...r, action: ALLOW };
    };
    const startMs = e.startMs ?? nowMs;
    const c: Connection = {
      key,
      protocol: e.protocol,
      srcIp: e.orig.src,
      srcPort: e.orig.sport,
      dstIp: e.reply.src,
      dstPort: e.reply.sport,
      origDstIp: e.orig.dst,
      origDstPort: e.orig.dport,
      zone: e.zone,
      mark: e.mark,
      labels: e.labels,
      startMs,
      stopMs: e.stopMs ?? nowMs,
      origPackets: e.orig.packets,
      origBytes: e.orig.bytes,
      replyPackets: e.reply.packets,
      replyBytes: e.reply.bytes,
      prevPackets: 0,
      prevBytes: 0,
      prevReplyPackets: 0,
      prevReplyBytes: 0,
      tcpState: e.tcpState,
      prevTcpState: '',
      status: e.status,
      isPresent: true,
      isActive: true,
      readyToDelete: false,
      lastExportMs: startMs,
      srcPod,
      dstPod,
      servicePortName: (isService && md.servicePortName(e.orig.dst, e.orig.dport, e.protocol)) || '',
      // The allowing rules' conjunction ids: ingress in ct_label[0..31], egress in [32..63].
      ingressRule: rule(low32(e.labels)),
      egressRule: rule(low32(e.labels >> 32n)),
      activeExpireMs: nowMs + this.o.activeTimeoutMs,
      idleExpireMs: nowMs + this.o.idleTimeoutMs,
      heapIndex: -1,
    };
    this.conns.set(key, c);
    this.queue.push(c);
  }
}
