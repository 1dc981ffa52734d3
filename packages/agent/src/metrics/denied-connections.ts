import type { PacketIn2 } from '@antrea-ts/openflow';
import { Gauge, type Registry } from 'prom-client';
import { CookieCategory, categoryOf } from '../openflow/cookie.js';
import {
  conjIdOfCookie,
  LOG_PACKET_IN_OP,
  REJECT_PACKET_IN_OP,
} from '../openflow/features/network-policy.js';
import { parseTracePacket } from '../traceflow/packet.js';

export interface DeniedConnectionsOptions {
  readonly registry: Registry;
  /** Whether the rule of this conjunction id drops or rejects (a logged Allow or Pass is no denial). */
  readonly deniesByConjId: (conjId: number) => boolean;
  /** A connection not seen for this long is no longer counted. Default 15 s (Antrea's idleFlowExportTimeout). */
  readonly idleTimeoutMs?: number;
  /** Most connections tracked at once; beyond, new ones are not counted until idle ones expire. */
  readonly maxTracked?: number;
  readonly now?: () => number;
}

/**
 * antrea_agent_denied_connection_count: connections (5-tuples) that NetworkPolicy rules dropped or
 * rejected, learnt from the packet-ins those rules send (Reject always; Drop with enableLogging),
 * counted while seen within the idle timeout, as Antrea's Flow Exporter tracks denied connections.
 * Our Flow Exporter does not track denied connections, so a Drop rule without logging sends no
 * packet-in and its denials are not counted.
 */
export class DeniedConnections {
  /** Last time each connection was seen, oldest first (a connection seen again moves to the end). */
  private readonly lastSeen = new Map<string, number>();
  private readonly idleMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(private readonly o: DeniedConnectionsOptions) {
    this.idleMs = o.idleTimeoutMs ?? 15_000;
    this.max = o.maxTracked ?? 65_536;
    this.now = o.now ?? Date.now;
    const size = () => this.size();
    new Gauge({
      name: 'antrea_agent_denied_connection_count',
      help: 'Number of denied connections (dropped or rejected by NetworkPolicy, seen by packet-in).',
      registers: [o.registry],
      collect() {
        this.set(size());
      },
    });
  }

  /** Every packet-in of the bridge; the ones NetworkPolicy rules sent for denied packets count. */
  observe(pi: PacketIn2): void {
    const cookie = pi.cookie ?? 0n;
    if (categoryOf(cookie) !== CookieCategory.NetworkPolicy) return;
    const op = pi.userdata?.[0] ?? 0;
    const denied =
      (op & REJECT_PACKET_IN_OP) !== 0 ||
      ((op & LOG_PACKET_IN_OP) !== 0 && this.o.deniesByConjId(conjIdOfCookie(cookie)));
    if (!denied) return;
    const p = parseTracePacket(pi.packet);
    if (!p) return;
    const key = `${p.protocol} ${p.srcIp}:${p.srcPort ?? 0} ${p.dstIp}:${p.dstPort ?? 0}`;
    if (!this.lastSeen.delete(key) && this.lastSeen.size >= this.max) this.expire();
    if (this.lastSeen.size < this.max) this.lastSeen.set(key, this.now());
  }

  /** Denied connections seen within the idle timeout. */
  size(): number {
    this.expire();
    return this.lastSeen.size;
  }

  /** Drops the connections idle for the timeout: the oldest, so it stops at the first one still seen. */
  private expire(): void {
    const before = this.now() - this.idleMs;
    for (const [key, seen] of this.lastSeen) {
      if (seen >= before) return;
      this.lastSeen.delete(key);
    }
  }
}
