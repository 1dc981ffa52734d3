import type { Flow } from '@antrea-ts/openflow';
import { formatCidr, parseCidr } from '../../net/ipv4.js';
import { egressSourceMac } from '../../snat/egress-snat.js';
import { CookieCategory } from '../cookie.js';
import {
  FromPodRegMark,
  FromTunnelRegMark,
  loadMark,
  matchMarks,
  ToGatewayRegMark,
  ToTunnelRegMark,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, tableFlow } from '../flow-context.js';
import { ipv4Value, macValue } from './gateway.js';
import { GLOBAL_VIRTUAL_MAC } from './tunnel.js';

// Egress in OVS (Antrea's EgressMark table, pkg/agent/openflow/egress.go). L3Forwarding sends what
// no route claimed (destinations outside the cluster) from local Pods and from the tunnel to
// EgressMark; there, the packets of an Egress's Pods either get the Egress's source MAC and go to
// antrea-gw0 (on the Egress Node, where iptables SNATs them to the Egress IP) or go into the tunnel
// to the Egress IP itself (from any other Node). Everything else misses to L2ForwardingCalc, as it
// did before the Egress tables existed.

const C = CookieCategory.Egress;

/**
 * The two L3Forwarding entries into EgressMark for packets that are not replies, below every route
 * (priority 190), and, above the
 * Egress flows, destinations that leave EgressMark untouched: Node IPs (Antrea skips SNAT for
 * traffic to Nodes: it goes from the Pod's own Node, not through the Egress Node) and the
 * `egress.exceptCIDRs` (leaving from the Pod's own Node, with its usual masquerade).
 */
export function egressStaticFlows(
  ctx: FlowContext,
  nodeIps: readonly string[] = [],
  exceptCidrs: readonly string[] = [],
): Flow[] {
  const skip = (nw_dst: string) =>
    tableFlow(ctx, C, 'EgressMark', 210, { ip: true, nw_dst }, [gotoTable(ctx, 'L2ForwardingCalc')]);
  return [
    ...[...nodeIps].sort().map(skip),
    // IPv4 only, like the rest of Egress here.
    ...[...new Set(exceptCidrs.filter((c) => !c.includes(':')).map((c) => formatCidr(parseCidr(c))))]
      .sort()
      .map(skip),
    // Replies stay on their connection's path: a Pod of an Egress answering a client that came in
    // through the gateway (a NodePort, a routed Pod IP) must not leave through the Egress IP.
    tableFlow(
      ctx,
      C,
      'L3Forwarding',
      190,
      { ct_state: '-rpl+trk', ip: true, ...matchMarks(FromPodRegMark) },
      [gotoTable(ctx, 'EgressMark')],
    ),
    tableFlow(
      ctx,
      C,
      'L3Forwarding',
      190,
      { ct_state: '-rpl+trk', ip: true, ...matchMarks(FromTunnelRegMark) },
      [gotoTable(ctx, 'EgressMark')],
    ),
  ];
}

export interface EgressFlowSpec {
  readonly egressIp: string;
  /** The Egress's mark on this Node when this Node holds the IP; undefined: tunnel to the IP. */
  readonly mark: number | undefined;
  /** IPv4 addresses of the Egress's Pods on this Node. */
  readonly localPodIps: readonly string[];
  readonly gatewayMac: string;
}

/** The EgressMark flows of one Egress on this Node. */
export function egressFlows(ctx: FlowContext, spec: EgressFlowSpec): Flow[] {
  const flows: Flow[] = [];
  const next = gotoNext(ctx, 'EgressMark');
  const gwMac = macValue(spec.gatewayMac);
  if (spec.mark !== undefined) {
    const mac = macValue(egressSourceMac(spec.mark));
    for (const ip of spec.localPodIps) {
      flows.push(
        tableFlow(ctx, C, 'EgressMark', 200, { ip: true, nw_src: ip, ...matchMarks(FromPodRegMark) }, [
          { type: 'set_field', field: 'eth_src', value: mac },
          loadMark(ToGatewayRegMark),
          next,
        ]),
      );
    }
    // Other Nodes' Pods, tunneled to the Egress IP.
    flows.push(
      tableFlow(
        ctx,
        C,
        'EgressMark',
        200,
        { ip: true, tun_dst: spec.egressIp, ...matchMarks(FromTunnelRegMark) },
        [
          { type: 'set_field', field: 'eth_src', value: mac },
          { type: 'set_field', field: 'eth_dst', value: gwMac },
          loadMark(ToGatewayRegMark),
          next,
        ],
      ),
    );
    return flows;
  }
  for (const ip of spec.localPodIps) {
    flows.push(
      tableFlow(ctx, C, 'EgressMark', 200, { ip: true, nw_src: ip, ...matchMarks(FromPodRegMark) }, [
        { type: 'set_field', field: 'eth_src', value: gwMac },
        { type: 'set_field', field: 'eth_dst', value: macValue(GLOBAL_VIRTUAL_MAC) },
        { type: 'set_field', field: 'tun_dst', value: ipv4Value(spec.egressIp) },
        loadMark(ToTunnelRegMark),
        next,
      ]),
    );
  }
  return flows;
}
