import type { FlowValues } from './flow-record.js';

/** What one Node's agent reports of a connection, for tests and benchmarks. */
export interface AgentRecordSpec {
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
  readonly flowType: number;
  readonly start: number;
  readonly end: number;
  /** Set on the source Node's record. */
  readonly srcPod?: { name: string; namespace: string; node: string };
  /** Set on the destination Node's record. */
  readonly dstPod?: { name: string; namespace: string; node: string };
  readonly packets?: bigint;
  readonly octets?: bigint;
  readonly reverseOctets?: bigint;
  readonly prevPackets?: bigint;
  readonly prevOctets?: bigint;
  readonly service?: { clusterIp: string; port: number; portName: string };
  readonly endReason?: number;
  readonly tcpState?: string;
}

/** An agent record as the collecting process decodes it (the values under element names). */
export function agentRecord(s: AgentRecordSpec): FlowValues {
  const packets = s.packets ?? 0n;
  const octets = s.octets ?? 0n;
  return {
    flowStartSeconds: s.start,
    flowEndSeconds: s.end,
    flowEndReason: s.endReason ?? 2,
    sourceTransportPort: s.sport,
    destinationTransportPort: s.dport,
    protocolIdentifier: 6,
    packetTotalCount: packets,
    octetTotalCount: octets,
    packetDeltaCount: packets - (s.prevPackets ?? 0n),
    octetDeltaCount: octets - (s.prevOctets ?? 0n),
    sourceIPv4Address: s.src,
    destinationIPv4Address: s.dst,
    reversePacketTotalCount: 0n,
    reverseOctetTotalCount: s.reverseOctets ?? 0n,
    reversePacketDeltaCount: 0n,
    reverseOctetDeltaCount: 0n,
    sourcePodName: s.srcPod?.name ?? '',
    sourcePodNamespace: s.srcPod?.namespace ?? '',
    sourceNodeName: s.srcPod?.node ?? '',
    destinationPodName: s.dstPod?.name ?? '',
    destinationPodNamespace: s.dstPod?.namespace ?? '',
    destinationNodeName: s.dstPod?.node ?? '',
    destinationServicePort: s.service?.port ?? 0,
    destinationServicePortName: s.service?.portName ?? '',
    ingressNetworkPolicyName: '',
    ingressNetworkPolicyNamespace: '',
    ingressNetworkPolicyType: 0,
    ingressNetworkPolicyRuleName: '',
    ingressNetworkPolicyRuleAction: 0,
    egressNetworkPolicyName: '',
    egressNetworkPolicyNamespace: '',
    egressNetworkPolicyType: 0,
    egressNetworkPolicyRuleName: '',
    egressNetworkPolicyRuleAction: 0,
    tcpState: s.tcpState ?? 'ESTABLISHED',
    flowType: s.flowType,
    egressName: '',
    egressIP: '',
    egressNodeName: '',
    proxySnatPort: 0,
    destinationClusterIPv4: s.service?.clusterIp ?? '0.0.0.0',
    proxySnatIPv4: '0.0.0.0',
    destinationServiceIPv4: s.service?.clusterIp ?? '0.0.0.0',
  };
}
