import { type Action, load, type MatchSpec } from '@antrea-ts/openflow';

/**
 * Register, ct_mark and ct_label allocations of the pipeline (Antrea pkg/agent/openflow/fields.go).
 * Bit ranges are inclusive. Ranges are reserved here even where only the policy or service issue
 * will use them, so no two features can pick the same bits.
 *
 * reg0  [0..3]   PktSource: 1 tunnel, 2 gateway, 3 Pod, 4 uplink, 5 bridge, 6 TC return
 *       [4..7]   PktDestination: 1 tunnel, 2 gateway, 3 local Pod, 4 uplink, 5 bridge
 *       [9]      RewriteMAC: L3Forwarding must rewrite the MACs (packet came routed or tunneled)
 *       [10]     APDeny (policy), [11..12] APDisposition (policy), [13] reject packet-out (policy)
 *       [14]     SvcNoEp (service), [19] RemoteSNAT (egress)
 *       [21..22] Output: 1 to the ofport in reg1, 2 to the controller
 *       [25..31] PacketInOperation (controller)
 * reg1  [0..31]  TargetOFPort
 * reg2           swap space / packet-in table (policy, traceflow)
 * reg3           EndpointIP (service) / APConjID (policy)
 * reg4  [0..15]  EndpointPort, [16..18] ServiceEPState: 1 to select, 2 selected, 3 to learn (service)
 *       [19]     ToNodePortAddress: the destination is a NodePort address (proxyAll)
 *       [20]     FromLocalNode: from the gateway with one of the Node's own addresses as source (proxyAll;
 *                externalTrafficPolicy Local does not apply to it, as in Antrea)
 *       [21]     ToClusterService: an external address of an externalTrafficPolicy Cluster Service
 *                (from the gateway to another Node it is SNATed, so the reply returns here)
 *       [22..23] TrafficControlAction: 1 mirror, 2 redirect (TrafficControl)
 * reg5, reg6     Traceflow egress / ingress conjunction ids (policy)
 * reg7           ServiceGroupID (service), reg8 VLAN and ct zone type, reg9 TC target port
 * ct_mark [0..3] ConnSource (copied from PktSource at commit), [4] Service, [5] ConnSNAT, [6] Hairpin
 * ct_label [0..31] ingress rule conj id, [32..63] egress rule conj id (policy)
 */

export interface RegField {
  readonly name: string;
  readonly field: string;
  readonly start: number;
  readonly end: number;
}

export interface RegMark {
  readonly field: RegField;
  readonly value: number;
}

const f = (name: string, field: string, start: number, end: number): RegField =>
  Object.freeze({ name, field, start, end });
const mark = (field: RegField, value: number): RegMark => Object.freeze({ field, value });

export const PktSourceField = f('PktSource', 'reg0', 0, 3);
export const FromTunnelRegMark = mark(PktSourceField, 1);
export const FromGatewayRegMark = mark(PktSourceField, 2);
export const FromPodRegMark = mark(PktSourceField, 3);
export const FromUplinkRegMark = mark(PktSourceField, 4);
export const FromBridgeRegMark = mark(PktSourceField, 5);
export const FromTCReturnRegMark = mark(PktSourceField, 6);

export const PktDestinationField = f('PktDestination', 'reg0', 4, 7);
export const ToTunnelRegMark = mark(PktDestinationField, 1);
export const ToGatewayRegMark = mark(PktDestinationField, 2);
export const ToLocalRegMark = mark(PktDestinationField, 3);

export const RewriteMACField = f('RewriteMAC', 'reg0', 9, 9);
export const RewriteMACRegMark = mark(RewriteMACField, 1);

export const APDenyField = f('APDeny', 'reg0', 10, 10);
export const APDispositionField = f('APDisposition', 'reg0', 11, 12);
export const RejectPacketOutField = f('GeneratedRejectPacketOut', 'reg0', 13, 13);
export const SvcNoEpField = f('SvcNoEp', 'reg0', 14, 14);
export const SvcNoEpRegMark = mark(SvcNoEpField, 1);
export const RemoteSNATField = f('RemoteSNAT', 'reg0', 19, 19);

export const OutputField = f('Output', 'reg0', 21, 22);
export const OutputToOFPortRegMark = mark(OutputField, 1);
export const OutputToControllerRegMark = mark(OutputField, 2);
export const PacketInOperationField = f('PacketInOperation', 'reg0', 25, 31);

export const TargetOFPortField = f('TargetOFPort', 'reg1', 0, 31);
export const SwapField = f('Swap', 'reg2', 0, 31);
export const EndpointIPField = f('EndpointIP', 'reg3', 0, 31);
export const EndpointPortField = f('EndpointPort', 'reg4', 0, 15);
export const ServiceEPStateField = f('ServiceEPState', 'reg4', 16, 18);
export const EpToSelectRegMark = mark(ServiceEPStateField, 1);
export const EpSelectedRegMark = mark(ServiceEPStateField, 2);
export const EpToLearnRegMark = mark(ServiceEPStateField, 3);
export const ToNodePortAddressField = f('ToNodePortAddress', 'reg4', 19, 19);
export const ToNodePortAddressRegMark = mark(ToNodePortAddressField, 1);
export const FromLocalNodeField = f('FromLocalNode', 'reg4', 20, 20);
export const FromLocalNodeRegMark = mark(FromLocalNodeField, 1);
export const NotFromLocalNodeRegMark = mark(FromLocalNodeField, 0);
export const ToClusterServiceField = f('ToClusterService', 'reg4', 21, 21);
export const ToClusterServiceRegMark = mark(ToClusterServiceField, 1);
export const TrafficControlActionField = f('TrafficControlAction', 'reg4', 22, 23);
export const TrafficControlMirrorRegMark = mark(TrafficControlActionField, 1);
export const TrafficControlRedirectRegMark = mark(TrafficControlActionField, 2);
export const ServiceGroupIDField = f('ServiceGroupID', 'reg7', 0, 31);
export const TrafficControlTargetOFPortField = f('TrafficControlTargetOFPort', 'reg9', 0, 31);
export const TraceflowEgressConjField = f('TFEgressConjID', 'reg5', 0, 31);
export const TraceflowIngressConjField = f('TFIngressConjID', 'reg6', 0, 31);

export const ConnSourceCTMarkField = f('ConnSource', 'ct_mark', 0, 3);
export const ServiceCTMarkField = f('ServiceCTMark', 'ct_mark', 4, 4);
export const ServiceCTMark = mark(ServiceCTMarkField, 1);
export const ConnSNATCTMarkField = f('ConnSNAT', 'ct_mark', 5, 5);
export const ConnSNATCTMark = mark(ConnSNATCTMarkField, 1);
export const HairpinCTMarkField = f('Hairpin', 'ct_mark', 6, 6);
export const HairpinCTMark = mark(HairpinCTMarkField, 1);
export const IngressRuleCTLabelField = f('IngressRuleCTLabel', 'ct_label', 0, 31);
export const EgressRuleCTLabelField = f('EgressRuleCTLabel', 'ct_label', 32, 63);

/** Every allocation, for the overlap test and for documentation dumps. */
export const ALL_FIELDS: readonly RegField[] = Object.freeze([
  PktSourceField,
  PktDestinationField,
  RewriteMACField,
  APDenyField,
  APDispositionField,
  RejectPacketOutField,
  SvcNoEpField,
  RemoteSNATField,
  OutputField,
  PacketInOperationField,
  TargetOFPortField,
  SwapField,
  EndpointIPField,
  EndpointPortField,
  ServiceEPStateField,
  ToNodePortAddressField,
  FromLocalNodeField,
  ToClusterServiceField,
  TrafficControlActionField,
  ServiceGroupIDField,
  TrafficControlTargetOFPortField,
  TraceflowEgressConjField,
  TraceflowIngressConjField,
  ConnSourceCTMarkField,
  ServiceCTMarkField,
  ConnSNATCTMarkField,
  HairpinCTMarkField,
  IngressRuleCTLabelField,
  EgressRuleCTLabelField,
]);

const fieldMask = (rf: RegField): bigint => ((1n << BigInt(rf.end - rf.start + 1)) - 1n) << BigInt(rf.start);

/** A set_field action that writes the mark's value into its bits only. */
export function loadMark(m: RegMark): Action {
  return load(m.field.field, m.value, m.field.start, m.field.end);
}

/** A set_field action writing `value` into a whole field (e.g. reg1 = ofport). */
export function loadField(rf: RegField, value: number): Action {
  return load(rf.field, value, rf.start, rf.end);
}

/**
 * Match criteria for several marks; marks on the same register are merged into one masked match,
 * as OVS stores them.
 */
export function matchMarks(...marks: readonly RegMark[]): MatchSpec {
  const acc = new Map<string, { value: bigint; mask: bigint }>();
  for (const m of marks) {
    const cur = acc.get(m.field.field) ?? { value: 0n, mask: 0n };
    const mask = fieldMask(m.field);
    cur.value = (cur.value & ~mask) | (BigInt(m.value) << BigInt(m.field.start));
    cur.mask |= mask;
    acc.set(m.field.field, cur);
  }
  const spec: MatchSpec = {};
  for (const [field, { value, mask }] of acc) spec[field] = { value, mask };
  return spec;
}

/** Fields that overlap on the same register (should be none). */
export function overlappingFields(fields: readonly RegField[] = ALL_FIELDS): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < fields.length; i++) {
    for (let j = i + 1; j < fields.length; j++) {
      const a = fields[i]!;
      const b = fields[j]!;
      if (a.field === b.field && a.start <= b.end && b.start <= a.end) out.push([a.name, b.name]);
    }
  }
  return out;
}
