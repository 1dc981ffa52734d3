import type { Flow } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  FromPodRegMark,
  loadField,
  loadMark,
  matchMarks,
  OutputToOFPortRegMark,
  RewriteMACRegMark,
  TargetOFPortField,
  ToLocalRegMark,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, tableFlow } from '../flow-context.js';
import { macValue } from './gateway.js';
import { podHairpinFlows } from './service.js';

const C = CookieCategory.PodConnectivity;

export interface PodFlowConfig {
  readonly ofport: number;
  readonly ip: string;
  readonly mac: string;
}

/**
 * Flows for one local Pod (Antrea InstallPodFlows): the Pod may only send with its own IP and MAC,
 * routed traffic for its IP gets its MAC, and its MAC leads to its port.
 */
export function podFlows(ctx: FlowContext, pod: PodFlowConfig, gatewayMac: string): Flow[] {
  return [
    tableFlow(
      ctx,
      C,
      'ARPSpoofGuard',
      200,
      { arp: true, in_port: pod.ofport, arp_spa: pod.ip, arp_sha: pod.mac },
      [gotoTable(ctx, 'ARPResponder')],
    ),
    tableFlow(ctx, C, 'Classifier', 190, { in_port: pod.ofport }, [
      loadMark(FromPodRegMark),
      gotoTable(ctx, 'SpoofGuard'),
    ]),
    tableFlow(
      ctx,
      C,
      'SpoofGuard',
      200,
      { ip: true, in_port: pod.ofport, eth_src: pod.mac, nw_src: pod.ip },
      [gotoNext(ctx, 'SpoofGuard')],
    ),
    tableFlow(ctx, C, 'L3Forwarding', 200, { ip: true, nw_dst: pod.ip, ...matchMarks(RewriteMACRegMark) }, [
      { type: 'set_field', field: 'eth_src', value: macValue(gatewayMac) },
      { type: 'set_field', field: 'eth_dst', value: macValue(pod.mac) },
      loadMark(ToLocalRegMark),
      gotoTable(ctx, 'L3DecTTL'),
    ]),
    tableFlow(ctx, C, 'L2ForwardingCalc', 200, { eth_dst: pod.mac }, [
      loadField(TargetOFPortField, pod.ofport),
      loadMark(OutputToOFPortRegMark),
      gotoNext(ctx, 'L2ForwardingCalc'),
    ]),
    ...podHairpinFlows(ctx, pod.ip),
  ];
}
