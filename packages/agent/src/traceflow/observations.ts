import type { TraceflowObservation } from '@antrea-ts/apis';
import type { PacketIn2 } from '@antrea-ts/openflow';
import { formatIpv4 } from '../net/ipv4.js';
import type { Pipeline, TableName } from '../openflow/pipeline.js';

/** What a Traceflow packet-in tells: where it stopped and the registers there. */
export interface PacketInFacts {
  readonly table: TableName | undefined;
  /** reg1: the output port L2ForwardingCalc chose. */
  readonly targetOfport: number;
  /** reg3: the rule that dropped the packet (metric tables). */
  readonly deciderConjId: number;
  /** reg5 / reg6: the egress / ingress rules that allowed it. */
  readonly egressConjId: number;
  readonly ingressConjId: number;
  readonly tunnelDstIp: string | undefined;
  readonly srcIp: string;
  readonly dstIp: string;
  /**
   * The addresses of the connection as conntrack first saw it (ct_nw_src/ct_nw_dst): they differ
   * from the packet's when AntreaProxy rewrote it (DNAT to an endpoint; SNAT for hairpin).
   */
  readonly ctSrcIp?: string | undefined;
  readonly ctDstIp?: string | undefined;
}

const reg = (pi: PacketIn2, field: string): number =>
  Number(pi.metadata.find((m) => m.field === field)?.value ?? 0n);

/** Reads the facts out of a packet-in (registers come as metadata; absent means zero). */
export function packetInFacts(
  pi: PacketIn2,
  pipeline: Pipeline,
  ips: { srcIp: string; dstIp: string },
): PacketInFacts {
  const ipv4 = (field: string) => {
    const value = pi.metadata.find((m) => m.field === field)?.value;
    return value ? formatIpv4(Number(value)) : undefined;
  };
  return {
    table: pi.tableId === undefined ? undefined : pipeline.nameOf(pi.tableId),
    targetOfport: reg(pi, 'reg1'),
    deciderConjId: reg(pi, 'reg3'),
    egressConjId: reg(pi, 'reg5'),
    ingressConjId: reg(pi, 'reg6'),
    tunnelDstIp: ipv4('tun_dst'),
    ctSrcIp: ipv4('ct_nw_src'),
    ctDstIp: ipv4('ct_nw_dst'),
    ...ips,
  };
}

/** A NetworkPolicy rule as Traceflow names it. */
export interface TracedRule {
  /** Antrea's NetworkPolicyReference string: `<type>:<namespace>/<name>` or `<type>:<name>`. */
  readonly policy: string;
  readonly rule: string;
  readonly action: string;
}

/** What this Node knows when it explains a packet-in. */
export interface ObservationContext {
  /** This Node injected the packet (or tagged it at the source Pod). */
  readonly isSender: boolean;
  /** Live traffic without a source Pod: only the destination Node reports. */
  readonly receiverOnly: boolean;
  readonly gatewayOfport: number;
  readonly gatewayIp: string;
  readonly tunnelOfport: number | undefined;
  rule(conjId: number): TracedRule | undefined;
  /** "namespace/name" of the local Pod on a port. */
  podOfPort(ofport: number): string | undefined;
}

/**
 * The observations of one Node for one packet-in, in path order (Antrea's parsePacketIn): how the
 * packet entered (SpoofGuard on the sender, Received elsewhere), the Service load balancing that
 * rewrote it, the policy rules that allowed it, then what stopped it: a policy drop, a Service
 * without endpoints (LB Rejected, our addition), or the output port (tunnel, gateway, local Pod).
 */
export function buildObservations(f: PacketInFacts, ctx: ObservationContext): TraceflowObservation[] {
  const obs: TraceflowObservation[] = [];
  if (ctx.isSender) {
    obs.push({
      component: 'SpoofGuard',
      action: f.table === 'SpoofGuard' ? 'Dropped' : 'Forwarded',
      // A hairpin connection has its source rewritten by now; conntrack still has the Pod's.
      srcPodIP: f.ctSrcIp ?? f.srcIp,
    });
    if (f.table === 'SpoofGuard') return obs;
  } else {
    obs.push({ component: 'Forwarding', action: 'Received' });
  }
  const lb = ctx.receiverOnly ? undefined : loadBalancing(f);
  if (lb) obs.push(lb);
  if (!ctx.receiverOnly && f.egressConjId)
    obs.push(policyObservation('EgressRule', 'Forwarded', ctx.rule(f.egressConjId)));
  if (f.ingressConjId) obs.push(policyObservation('IngressRule', 'Forwarded', ctx.rule(f.ingressConjId)));
  switch (f.table) {
    case 'EgressMetric':
    case 'IngressMetric': {
      const rule = ctx.rule(f.deciderConjId);
      obs.push(policyObservation(f.table, rule?.action === 'Reject' ? 'Rejected' : 'Dropped', rule));
      break;
    }
    case 'EgressDefaultRule':
    case 'IngressDefaultRule':
      obs.push({ component: 'NetworkPolicy', componentInfo: f.table, action: 'Dropped' });
      break;
    case 'Output':
      obs.push(outputObservation(f, ctx));
      break;
    case 'EndpointDNAT':
      // Only the no-endpoint flow reports from here: AntreaProxy refuses such connections.
      obs.push({ component: 'LB', action: 'Rejected' });
      break;
    default:
      break;
  }
  return obs;
}

/** AntreaProxy's DNAT (and hairpin SNAT) of the packet, seen as the difference from conntrack's tuple. */
function loadBalancing(f: PacketInFacts): TraceflowObservation | undefined {
  const dnat = f.ctDstIp !== undefined && f.ctDstIp !== f.dstIp;
  const snat = f.ctSrcIp !== undefined && f.ctSrcIp !== f.srcIp;
  if (!dnat && !snat) return undefined;
  return {
    component: 'LB',
    action: 'Forwarded',
    translatedDstIP: f.dstIp,
    ...(snat ? { translatedSrcIP: f.srcIp } : {}),
  };
}

function policyObservation(
  componentInfo: string,
  action: 'Forwarded' | 'Dropped' | 'Rejected',
  rule: TracedRule | undefined,
): TraceflowObservation {
  return {
    component: 'NetworkPolicy',
    componentInfo,
    action,
    ...(rule ? { networkPolicy: rule.policy, ...(rule.rule ? { networkPolicyRule: rule.rule } : {}) } : {}),
  };
}

function outputObservation(f: PacketInFacts, ctx: ObservationContext): TraceflowObservation {
  const ob: TraceflowObservation = { component: 'Forwarding', componentInfo: 'Output' };
  if (ctx.tunnelOfport !== undefined && f.targetOfport === ctx.tunnelOfport) {
    ob.action = 'Forwarded';
    if (f.tunnelDstIp) ob.tunnelDstIP = f.tunnelDstIp;
  } else if (f.targetOfport === ctx.gatewayOfport) {
    // To the Node itself, or out through the Node's routes (SNAT) to the outside.
    ob.action = f.dstIp === ctx.gatewayIp ? 'Delivered' : 'ForwardedOutOfNetwork';
  } else {
    ob.action = 'Delivered';
    const pod = ctx.podOfPort(f.targetOfport);
    if (pod) ob.pod = pod;
  }
  return ob;
}
