import { type ConntrackEntry, CT_STATUS_DYING } from './conntrack-dump.js';
import type { Expiring } from './expire-queue.js';

/** A local Pod's identity, as records name it. */
export interface PodRef {
  readonly name: string;
  readonly namespace: string;
}

/** The policy rule that decided a connection, as records describe it. */
export interface PolicyRuleRef {
  readonly policyName: string;
  readonly policyNamespace: string;
  /** Antrea's NetworkPolicyType numbers: 1 K8s, 2 Antrea NetworkPolicy, 3 Antrea ClusterNetworkPolicy, 4 K8s ClusterNetworkPolicy. */
  readonly policyType: number;
  readonly ruleName: string;
  /** 1 Allow, 2 Drop, 3 Reject (0 none). */
  readonly action: number;
}

/**
 * One connection of a local Pod as the store tracks it (Antrea's connection.Connection). The
 * destination is the endpoint that answered (the reply tuple's source), the original destination
 * is what the client asked for (a Service's ClusterIP before DNAT).
 */
export interface Connection extends Expiring {
  readonly key: string;
  readonly protocol: number;
  readonly srcIp: string;
  readonly srcPort: number;
  readonly dstIp: string;
  readonly dstPort: number;
  readonly origDstIp: string;
  readonly origDstPort: number;
  readonly zone: number;
  readonly mark: number;
  readonly labels: bigint;
  startMs: number;
  stopMs: number;
  origPackets: number;
  origBytes: number;
  replyPackets: number;
  replyBytes: number;
  /** Counters and TCP state at the last export. */
  prevPackets: number;
  prevBytes: number;
  prevReplyPackets: number;
  prevReplyBytes: number;
  tcpState: string;
  prevTcpState: string;
  status: number;
  isPresent: boolean;
  isActive: boolean;
  readyToDelete: boolean;
  lastExportMs: number;
  srcPod: PodRef | undefined;
  dstPod: PodRef | undefined;
  /** `<namespace>/<name>:<port name>` (`<namespace>/<name>` for an unnamed port), '' when not a Service connection. */
  servicePortName: string;
  ingressRule: PolicyRuleRef | undefined;
  egressRule: PolicyRuleRef | undefined;
}

/** Store key: protocol, zone and the 5-tuple as the endpoint sees it. */
export const connectionKey = (e: ConntrackEntry): string =>
  `${e.protocol}/${e.zone}/${e.orig.src}/${e.orig.sport}/${e.reply.src}/${e.reply.sport}`;

/** Closed (TCP TIME_WAIT or CLOSE), marked dying by conntrack, or gone from the dump. */
export function isDying(c: Connection): boolean {
  if (c.tcpState === 'TIME_WAIT' || c.tcpState === 'CLOSE') return true;
  if (c.tcpState === '' && (c.status & CT_STATUS_DYING) !== 0) return true;
  return !c.isPresent;
}

/** Packets in either direction or a TCP state change since the last export. */
export const hasActivity = (c: Connection): boolean =>
  c.origPackets > c.prevPackets || c.replyPackets > c.prevReplyPackets || c.tcpState !== c.prevTcpState;
