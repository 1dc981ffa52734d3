// crd.antrea.io/v1alpha1 PacketCapture (Antrea's pkg/apis/crd/v1alpha1): capture the first N packets
// of a flow on the Node of its source (or destination) Pod and keep or upload them as pcapng.
import type { CrdCondition, CustomResource } from './meta.js';

export interface PacketCapturePodReference {
  /** Defaults to "default" (CRD schema). */
  namespace?: string;
  name: string;
}

/** One end of the captured flow: a Pod or an IP address (at most one of them). */
export interface PacketCapturePeer {
  pod?: PacketCapturePodReference;
  ip?: string;
}

export interface PacketCapturePortHeader {
  srcPort?: number;
  dstPort?: number;
}

/** `tcp[13] & mask == value`; mask defaults to value. */
export interface PacketCaptureTcpFlagsMatcher {
  value: number;
  mask?: number;
}

export interface PacketCaptureIcmpMessage {
  /** A number (0-255) or one of the names in ICMP_MESSAGE_TYPES / ICMPV6_MESSAGE_TYPES. */
  type: number | string;
  code?: number;
}

export interface PacketCaptureTransportHeader {
  udp?: PacketCapturePortHeader;
  tcp?: PacketCapturePortHeader & { flags?: PacketCaptureTcpFlagsMatcher[] };
  icmp?: { messages?: PacketCaptureIcmpMessage[] };
  icmpv6?: { messages?: PacketCaptureIcmpMessage[] };
}

export interface PacketCapturePacket {
  /** Defaults to IPv4 (CRD schema). */
  ipFamily?: 'IPv4' | 'IPv6';
  /** A protocol number or TCP, UDP, ICMP, ICMPv6 (case-insensitive); none: any protocol. */
  protocol?: number | string;
  transportHeader?: PacketCaptureTransportHeader;
}

export const PACKET_CAPTURE_DIRECTIONS = ['SourceToDestination', 'DestinationToSource', 'Both'] as const;
export type PacketCaptureDirection = (typeof PACKET_CAPTURE_DIRECTIONS)[number];
export const PACKET_CAPTURE_POINTS = ['Source', 'Destination'] as const;
export type PacketCapturePoint = (typeof PACKET_CAPTURE_POINTS)[number];

/** Antrea's bounds and default for spec.timeout, in seconds. */
export const PACKET_CAPTURE_TIMEOUT = { min: 1, max: 300, default: 60 } as const;

/** The Secret (in the agents' Namespace) holding the file server's username and password, Antrea's name. */
export const PACKET_CAPTURE_FILE_SERVER_SECRET = 'antrea-packetcapture-fileserver-auth';

/** Protocol names Antrea accepts in spec.packet.protocol (compared upper-cased). */
export const PACKET_CAPTURE_PROTOCOLS: Readonly<Record<string, number>> = Object.freeze({
  TCP: 6,
  UDP: 17,
  ICMP: 1,
  ICMPV6: 58,
});

/** ICMP message type names (lower-cased) of spec.packet.transportHeader.icmp. */
export const ICMP_MESSAGE_TYPES: Readonly<Record<string, number>> = Object.freeze({
  'icmp-echo': 8,
  'icmp-echoreply': 0,
  'icmp-unreach': 3,
  'icmp-timxceed': 11,
});

/** ICMPv6 message type names (lower-cased) of spec.packet.transportHeader.icmpv6. */
export const ICMPV6_MESSAGE_TYPES: Readonly<Record<string, number>> = Object.freeze({
  'icmpv6-echo': 128,
  'icmpv6-echoreply': 129,
  'icmpv6-unreach': 1,
  'icmpv6-pkt-too-big': 2,
  'icmpv6-timxceed': 3,
  'icmpv6-paramprob': 4,
});

export interface PacketCaptureSpec {
  /** Seconds; defaults to PACKET_CAPTURE_TIMEOUT.default (CRD schema). */
  timeout?: number;
  captureConfig: { firstN?: { number: number } };
  source?: PacketCapturePeer;
  destination?: PacketCapturePeer;
  /** Defaults to SourceToDestination (CRD schema). */
  direction?: PacketCaptureDirection;
  /** Defaults to Source when source.pod is set, else Destination. */
  capturePoint?: PacketCapturePoint;
  packet?: PacketCapturePacket;
  /** Upload target; none: the file stays on the capturing agent. */
  fileServer?: { url: string; hostPublicKey?: string };
}

export type PacketCaptureConditionType =
  | 'PacketCaptureStarted'
  | 'PacketCaptureComplete'
  | 'PacketCaptureFileUploaded';

export interface PacketCaptureStatus {
  numberCaptured?: number;
  /** `<url>/<name>.pcapng` once uploaded, else `<agent pod>:<local path>`. */
  filePath?: string;
  conditions?: CrdCondition<PacketCaptureConditionType>[];
}

/** crd.antrea.io/v1alpha1, cluster-scoped. */
export interface PacketCapture extends CustomResource<'PacketCapture', 'crd.antrea.io/v1alpha1'> {
  spec: PacketCaptureSpec;
  status?: PacketCaptureStatus;
}
