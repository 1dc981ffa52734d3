import type { Action, Flow } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import { type FlowContext, gotoTable, packetInAction, tableFlow } from '../flow-context.js';

/** userdata[0] bit of a paused DNS response (after Reject 1, log 2, Traceflow 4). */
export const DNS_PACKET_IN_OP = 8;
/** Above the established/related bypass of AntreaPolicyIngressRule (64990), so answers are seen first. */
export const DNS_INTERCEPT_PRIORITY = 64991;
const DNS_PORT = 53;

/**
 * DNS responses to Pods that have FQDN egress rules (Antrea's DNS packet-in conjunction): the
 * reply direction of a tracked connection from port 53 (UDP, or a TCP segment with data) to one
 * of those Pods' ports is paused and sent to the agent, which learns the answers and realizes the
 * rules before resuming it. The resumed packet continues with this flow's remaining action, to
 * IngressMetric, exactly where the established bypass would have sent it, so it is never
 * intercepted twice and ingress policy sees it as before.
 */
export function dnsInterceptFlows(ctx: FlowContext, ofports: readonly number[]): Flow[] {
  const actions: Action[] = [
    packetInAction(DNS_PACKET_IN_OP, { pause: true }),
    gotoTable(ctx, 'IngressMetric'),
  ];
  const reply = { ct_state: '-new+est+rpl+trk' };
  return [...new Set(ofports)]
    .sort((a, b) => a - b)
    .flatMap((reg1) => [
      tableFlow(
        ctx,
        CookieCategory.NetworkPolicy,
        'AntreaPolicyIngressRule',
        DNS_INTERCEPT_PRIORITY,
        { udp: true, udp_src: DNS_PORT, reg1, ...reply },
        actions,
      ),
      tableFlow(
        ctx,
        CookieCategory.NetworkPolicy,
        'AntreaPolicyIngressRule',
        DNS_INTERCEPT_PRIORITY,
        { tcp: true, tcp_src: DNS_PORT, tcp_flags: '+psh+ack', reg1, ...reply },
        actions,
      ),
    ]);
}
