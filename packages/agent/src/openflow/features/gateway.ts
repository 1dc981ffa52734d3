import type { Flow } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  FromGatewayRegMark,
  loadField,
  loadMark,
  matchMarks,
  OutputToOFPortRegMark,
  RewriteMACRegMark,
  TargetOFPortField,
  ToGatewayRegMark,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, tableFlow } from '../flow-context.js';

const C = CookieCategory.PodConnectivity;

export interface GatewayConfig {
  readonly ofport: number;
  readonly mac: string;
  readonly ip: string;
}

/** Flows of antrea-gw0 (Antrea gateway.go): classify, admit, route to and switch to the gateway. */
export function gatewayFlows(ctx: FlowContext, gw: GatewayConfig): Flow[] {
  return [
    tableFlow(
      ctx,
      C,
      'ARPSpoofGuard',
      200,
      { arp: true, in_port: gw.ofport, arp_spa: gw.ip, arp_sha: gw.mac },
      [gotoTable(ctx, 'ARPResponder')],
    ),
    tableFlow(ctx, C, 'Classifier', 200, { in_port: gw.ofport }, [
      loadMark(FromGatewayRegMark),
      gotoTable(ctx, 'SpoofGuard'),
    ]),
    // The Node routes for many sources (its own IP, external replies after un-SNAT), so no IP check.
    tableFlow(ctx, C, 'SpoofGuard', 200, { ip: true, in_port: gw.ofport }, [gotoNext(ctx, 'SpoofGuard')]),
    // Routed or tunneled packets for the gateway IP get the gateway MAC.
    tableFlow(ctx, C, 'L3Forwarding', 210, { ip: true, nw_dst: gw.ip, ...matchMarks(RewriteMACRegMark) }, [
      { type: 'set_field', field: 'eth_dst', value: macValue(gw.mac) },
      loadMark(ToGatewayRegMark),
      gotoTable(ctx, 'L3DecTTL'),
    ]),
    tableFlow(ctx, C, 'L2ForwardingCalc', 200, { eth_dst: gw.mac }, [
      loadField(TargetOFPortField, gw.ofport),
      loadMark(OutputToOFPortRegMark),
      gotoNext(ctx, 'L2ForwardingCalc'),
    ]),
  ];
}

export function macValue(mac: string): bigint {
  return BigInt(`0x${mac.replaceAll(':', '')}`);
}

export function ipv4Value(ip: string): bigint {
  return ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
}
