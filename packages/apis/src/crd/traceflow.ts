import type { CustomResource } from './meta.js';

export type TraceflowPhase = 'Running' | 'Succeeded' | 'Failed';

export type TraceflowComponent = 'SpoofGuard' | 'LB' | 'Routing' | 'NetworkPolicy' | 'Forwarding' | 'Egress';

export type TraceflowAction =
  | 'Delivered'
  | 'Received'
  | 'Forwarded'
  | 'Dropped'
  | 'Rejected'
  /** Left the Antrea-managed network; not an end-to-end observation. */
  | 'ForwardedOutOfNetwork'
  | 'MarkedForSNAT'
  | 'ForwardedToEgressNode';

/** Seconds; the controller applies it when spec.timeout is unset (the schema has no default). */
export const DEFAULT_TRACEFLOW_TIMEOUT = 20;

/** IP protocol numbers understood in spec.packet.ipHeader.protocol. */
export const TRACEFLOW_PROTOCOL_NUMBERS = Object.freeze({ ICMP: 1, IGMP: 2, TCP: 6, UDP: 17, SCTP: 132 });

export interface TraceflowSource {
  namespace?: string;
  pod?: string;
  /** Only for live-traffic Traceflows. */
  ip?: string;
}

/** pod, service and ip are mutually exclusive. */
export interface TraceflowDestination {
  namespace?: string;
  pod?: string;
  service?: string;
  ip?: string;
}

export interface TraceflowIPHeader {
  /** Defaults to ICMP (1). */
  protocol?: number;
  ttl?: number;
  flags?: number;
}

export interface TraceflowIPv6Header {
  nextHeader?: number;
  hopLimit?: number;
}

export interface TraceflowICMPEchoRequestHeader {
  id?: number;
  sequence?: number;
}

export interface TraceflowUDPHeader {
  srcPort?: number;
  dstPort?: number;
}

export interface TraceflowTCPHeader {
  srcPort?: number;
  dstPort?: number;
  /** Defaults to 2 (SYN). */
  flags?: number;
}

export interface TraceflowTransportHeader {
  icmp?: TraceflowICMPEchoRequestHeader;
  udp?: TraceflowUDPHeader;
  tcp?: TraceflowTCPHeader;
}

export interface TraceflowPacket {
  srcIP?: string;
  dstIP?: string;
  /** IP packet length including the IP header. */
  length?: number;
  ipHeader?: TraceflowIPHeader;
  /** Setting it selects IPv6; ipHeader is then ignored. */
  ipv6Header?: TraceflowIPv6Header;
  transportHeader?: TraceflowTransportHeader;
}

export interface TraceflowSpec {
  source?: TraceflowSource;
  destination?: TraceflowDestination;
  packet?: TraceflowPacket;
  /** Trace the first matching packet of real traffic instead of injecting one. */
  liveTraffic?: boolean;
  /** Live traffic only: capture only a dropped packet. */
  droppedOnly?: boolean;
  /** Seconds, 1-300; see DEFAULT_TRACEFLOW_TIMEOUT. */
  timeout?: number;
}

export interface TraceflowObservation {
  component?: TraceflowComponent;
  componentInfo?: string;
  action?: TraceflowAction;
  /** "namespace/name". */
  pod?: string;
  dstMAC?: string;
  /** "namespace/name" or "name" of the matching policy. */
  networkPolicy?: string;
  networkPolicyRule?: string;
  egress?: string;
  ttl?: number;
  translatedSrcIP?: string;
  translatedDstIP?: string;
  tunnelDstIP?: string;
  egressIP?: string;
  egressNode?: string;
  srcPodIP?: string;
}

export interface TraceflowNodeResult {
  node?: string;
  /** "sender" or "receiver". */
  role?: string;
  /** Unix seconds. */
  timestamp?: number;
  observations?: TraceflowObservation[];
}

export interface TraceflowStatus {
  phase?: TraceflowPhase;
  reason?: string;
  startTime?: string;
  /** Identifies the session in the datapath across Nodes (an int8 in Antrea). */
  dataplaneTag?: number;
  results?: TraceflowNodeResult[];
  /** Live traffic only. */
  capturedPacket?: TraceflowPacket;
}

export interface Traceflow extends CustomResource<'Traceflow', 'crd.antrea.io/v1beta1'> {
  spec: TraceflowSpec;
  status?: TraceflowStatus;
}
