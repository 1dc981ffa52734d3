import { formatFlow } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../pipeline.js';
import { DNS_PACKET_IN_OP, dnsInterceptFlows } from './dns-interception.js';

const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };

describe('DNS interception flows', () => {
  it('pause the replies from port 53 (UDP, TCP with data) to each Pod once, then continue to IngressMetric', () => {
    // Ports repeat when several FQDN rules apply to one Pod: one pair of flows per Pod.
    expect(dnsInterceptFlows(ctx, [7, 3, 7]).map((f) => formatFlow(f))).toMatchInlineSnapshot(`
      [
        "cookie=0x1020000000000, table=23, priority=64991,ct_state=-new+est+rpl+trk,udp,reg1=0x3,tp_src=53 actions=controller(userdata=08,pause),goto_table:26",
        "cookie=0x1020000000000, table=23, priority=64991,ct_state=-new+est+rpl+trk,tcp,reg1=0x3,tp_src=53,tcp_flags=+psh+ack actions=controller(userdata=08,pause),goto_table:26",
        "cookie=0x1020000000000, table=23, priority=64991,ct_state=-new+est+rpl+trk,udp,reg1=0x7,tp_src=53 actions=controller(userdata=08,pause),goto_table:26",
        "cookie=0x1020000000000, table=23, priority=64991,ct_state=-new+est+rpl+trk,tcp,reg1=0x7,tp_src=53,tcp_flags=+psh+ack actions=controller(userdata=08,pause),goto_table:26",
      ]
    `);
    // Table 23 is AntreaPolicyIngressRule, 26 IngressMetric (where the established bypass goes).
    expect([ctx.pipeline.id('AntreaPolicyIngressRule'), ctx.pipeline.id('IngressMetric')]).toEqual([23, 26]);
    expect(DNS_PACKET_IN_OP).toBe(8);
    expect(dnsInterceptFlows(ctx, [])).toEqual([]);
  });
});
