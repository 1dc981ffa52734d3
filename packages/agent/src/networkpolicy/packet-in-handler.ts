import { OFPP, type OpenFlowBridgeClient, type PacketIn2 } from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import { DNS_PACKET_IN_OP } from '../openflow/features/dns-interception.js';
import { LOG_PACKET_IN_OP, REJECT_PACKET_IN_OP } from '../openflow/features/network-policy.js';
import { TRACEFLOW_PACKET_IN_OP } from '../openflow/features/traceflow.js';
import { rejectReply } from './reject-packet.js';

export interface PacketInHandlerOptions {
  readonly bridge: OpenFlowBridgeClient;
  readonly logger: Logger;
  /** Replies sent per second at most; more are dropped (the switch already dropped the packet). */
  readonly ratePerSecond?: number;
  readonly now?: () => number;
  /** Audit-log one packet of a rule with enableLogging (rate limited like the replies). */
  readonly onLog?: (pi: PacketIn2) => void;
  /** A tagged Traceflow packet reached an observation point (not rate limited: one per Node and tag). */
  readonly onTraceflow?: (pi: PacketIn2) => void;
  /**
   * A paused DNS response to a Pod with FQDN rules: resolves true when it may continue (it is then
   * resumed), false to drop it. Not rate limited: every paused packet must be resumed or dropped.
   * Without it, DNS responses are resumed at once.
   */
  readonly onDns?: (pi: PacketIn2) => Promise<boolean>;
}

/**
 * Dispatches packet-ins by the operation bits in userdata[0]: Traceflow observations go to the
 * Traceflow agent, enableLogging packets to the audit log, and it answers packets that Reject
 * rules sent to the controller: the reply goes back out of the port the packet came in on
 * (through the tunnel to the sending Node when it came from one), as if the destination had
 * answered. Rate limited, since every rejected packet costs a round trip.
 */
export class PacketInHandler {
  private readonly log: Logger;
  private tokens: number;
  private logTokens: number;
  private last: number;
  private readonly rate: number;
  private readonly now: () => number;
  private readonly listener = (pi: PacketIn2) => void this.onPacketIn(pi);
  private started = false;
  rejected = 0;

  constructor(private readonly options: PacketInHandlerOptions) {
    this.log = options.logger.child({ component: 'packet-in' });
    this.rate = options.ratePerSecond ?? 500;
    this.now = options.now ?? Date.now;
    this.tokens = this.rate;
    this.logTokens = this.rate;
    this.last = this.now();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.options.bridge.on('packetIn', this.listener);
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    (this.options.bridge as unknown as { off(e: string, l: (pi: PacketIn2) => void): void }).off?.(
      'packetIn',
      this.listener,
    );
  }

  private refill(): void {
    const t = this.now();
    const add = ((t - this.last) / 1000) * this.rate;
    this.tokens = Math.min(this.rate, this.tokens + add);
    this.logTokens = Math.min(this.rate, this.logTokens + add);
    this.last = t;
  }

  private take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private async continueDns(pi: PacketIn2): Promise<void> {
    const deliver = this.options.onDns ? await this.options.onDns(pi).catch(() => true) : true;
    if (!deliver) return;
    try {
      await this.options.bridge.resume?.(pi);
    } catch (err) {
      this.log.debug({ err }, 'resuming a DNS response failed');
    }
  }

  private async onPacketIn(pi: PacketIn2): Promise<void> {
    const op = pi.userdata?.[0] ?? 0;
    if (op & DNS_PACKET_IN_OP) {
      await this.continueDns(pi);
      return;
    }
    if (op & TRACEFLOW_PACKET_IN_OP) {
      this.options.onTraceflow?.(pi);
      return;
    }
    if (op & LOG_PACKET_IN_OP && this.options.onLog) {
      this.refill();
      if (this.logTokens >= 1) {
        this.logTokens -= 1;
        this.options.onLog(pi);
      }
    }
    if (!(op & REJECT_PACKET_IN_OP)) return;
    if (!this.take()) return;
    const reply = rejectReply(pi.packet);
    if (!reply) return;
    const inPort = pi.metadata.find((m) => m.field === 'in_port')?.value;
    if (inPort === undefined) return;
    const tunSrc = pi.metadata.find((m) => m.field === 'tun_src')?.value;
    const tunId = pi.metadata.find((m) => m.field === 'tun_id')?.value;
    try {
      await this.options.bridge.sendPacketOut({
        inPort: OFPP.CONTROLLER,
        packet: reply,
        actions: [
          ...(tunSrc
            ? [
                { type: 'set_field' as const, field: 'tun_dst', value: tunSrc },
                ...(tunId !== undefined
                  ? [{ type: 'set_field' as const, field: 'tun_id', value: tunId }]
                  : []),
              ]
            : []),
          { type: 'output', port: Number(inPort) },
        ],
      });
      this.rejected++;
    } catch (err) {
      this.log.debug({ err }, 'sending the reject reply failed');
    }
  }
}
