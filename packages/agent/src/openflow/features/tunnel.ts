import { type Flow, OFPP } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  FromTunnelRegMark,
  loadField,
  loadMark,
  OutputToOFPortRegMark,
  RewriteMACRegMark,
  TargetOFPortField,
  ToTunnelRegMark,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, tableFlow } from '../flow-context.js';
import { ipv4Value, macValue } from './gateway.js';

const C = CookieCategory.PodConnectivity;

/**
 * The MAC Antrea puts on every packet sent into a tunnel and answers with for remote gateways: the
 * receiving Node rewrites it anyway, so one well-known value serves all.
 */
export const GLOBAL_VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';

/** Static flows of antrea-tun0: decapsulated packets are routed; the virtual MAC leads into the tunnel. */
export function tunnelFlows(ctx: FlowContext, tunnelOfport: number): Flow[] {
  return [
    // Spoof guard does not apply: the sending Node checked the source Pod.
    tableFlow(ctx, C, 'Classifier', 200, { in_port: tunnelOfport }, [
      loadMark(FromTunnelRegMark),
      loadMark(RewriteMACRegMark),
      // Through UnSNAT when there is one: replies to connections SNATed to the gateway IP (proxyAll).
      gotoTable(ctx, ctx.pipeline.has('UnSNAT') ? 'UnSNAT' : 'ConntrackZone'),
    ]),
    tableFlow(ctx, C, 'L2ForwardingCalc', 200, { eth_dst: GLOBAL_VIRTUAL_MAC }, [
      loadField(TargetOFPortField, tunnelOfport),
      loadMark(OutputToOFPortRegMark),
      gotoNext(ctx, 'L2ForwardingCalc'),
    ]),
  ];
}

export interface PeerNode {
  readonly podCidr: string;
  readonly nodeIp: string;
  readonly gatewayIp: string;
}

/**
 * Flows for one remote Node reached through the tunnel (Antrea InstallNodeFlows): answer ARP for its
 * gateway IP (the Node's host route points there) and send its podCIDR to tun_dst = its Node IP.
 */
export function remoteNodeTunnelFlows(ctx: FlowContext, peer: PeerNode, localGatewayMac: string): Flow[] {
  const virtual = macValue(GLOBAL_VIRTUAL_MAC);
  return [
    tableFlow(ctx, C, 'ARPResponder', 200, { arp: true, arp_op: 1, arp_tpa: peer.gatewayIp }, [
      {
        type: 'move',
        src: { field: 'eth_src', start: 0, end: 47 },
        dst: { field: 'eth_dst', start: 0, end: 47 },
      },
      { type: 'set_field', field: 'eth_src', value: virtual },
      { type: 'set_field', field: 'arp_op', value: 2n },
      {
        type: 'move',
        src: { field: 'arp_sha', start: 0, end: 47 },
        dst: { field: 'arp_tha', start: 0, end: 47 },
      },
      { type: 'set_field', field: 'arp_sha', value: virtual },
      {
        type: 'move',
        src: { field: 'arp_spa', start: 0, end: 31 },
        dst: { field: 'arp_tpa', start: 0, end: 31 },
      },
      { type: 'set_field', field: 'arp_spa', value: ipv4Value(peer.gatewayIp) },
      { type: 'output', port: OFPP.IN_PORT },
    ]),
    tableFlow(ctx, C, 'L3Forwarding', 200, { ip: true, nw_dst: peer.podCidr }, [
      { type: 'set_field', field: 'eth_src', value: macValue(localGatewayMac) },
      { type: 'set_field', field: 'eth_dst', value: virtual },
      { type: 'set_field', field: 'tun_dst', value: ipv4Value(peer.nodeIp) },
      loadMark(ToTunnelRegMark),
      gotoTable(ctx, 'L3DecTTL'),
    ]),
  ];
}
