import { formatFlow } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../pipeline.js';
import { type ConjunctionSpec, conjunctionFlows, isolationFlows } from './network-policy.js';
import { allowedRuleMetrics, isolationDropFlows, traceflowFlows } from './traceflow.js';

const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
const text = (flows: ReturnType<typeof traceflowFlows>) => flows.map((f) => formatFlow(f));

describe('Traceflow flows', () => {
  it('an injected packet: reported at SpoofGuard drops, policy drops, isolation, and output; tunnel output continues', () => {
    const rule = (conjId: number, action: 'Allow' | 'Drop', direction: 'In' | 'Out'): ConjunctionSpec => ({
      conjId,
      direction,
      action,
      table: direction === 'In' ? 'IngressRule' : 'EgressRule',
      priority: 200,
      actionPriority: 200,
      peer: [{ ip: true, nw_src: '10.10.1.5' }],
      appliedTo: [{ ip: true, reg1: 6 }],
      services: [],
    });
    const installed = [
      ...isolationFlows(ctx, { ingress: [6], egress: [] }),
      ...conjunctionFlows(ctx, [rule(4, 'Allow', 'In'), rule(5, 'Drop', 'In'), rule(9, 'Allow', 'Out')]),
    ];
    // Only the Allow rules' new-connection metric flows are copied, and only the isolation drops.
    expect(
      allowedRuleMetrics(ctx, installed).map((f) => f.match.find((m) => m.field === 'reg3')?.value),
    ).toEqual([4n, 9n]);
    const flows = text(
      traceflowFlows(ctx, {
        tag: 7,
        tunnelOfport: 32768,
        liveTraffic: false,
        droppedOnly: false,
        isolationDrops: isolationDropFlows(ctx, installed),
        allowedRules: allowedRuleMetrics(ctx, installed),
      }),
    );
    const id = (t: Parameters<typeof ctx.pipeline.id>[0]) => ctx.pipeline.id(t);
    const [egress, ingress] = [id('EgressMetric'), id('IngressMetric')];
    expect(
      flows.map((f) =>
        f.replace(/table=\d+/, (m) =>
          m.replace(String(egress), 'EgressMetric').replace(String(ingress), 'IngressMetric'),
        ),
      ),
    ).toEqual([
      `cookie=0x1060000000000, table=${id('SpoofGuard')}, priority=1,ip,nw_tos=28 actions=controller(userdata=04)`,
      'cookie=0x1060000000000, table=EgressMetric, priority=202,ip,reg0=0x400/0x400,nw_tos=28 actions=controller(userdata=04)',
      `cookie=0x1060000000000, table=EgressMetric, priority=201,ip,reg0=0/0x400,nw_tos=28 actions=goto_table:${egress + 1}`,
      'cookie=0x1060000000000, table=IngressMetric, priority=202,ip,reg0=0x400/0x400,nw_tos=28 actions=controller(userdata=04)',
      `cookie=0x1060000000000, table=IngressMetric, priority=201,ip,reg0=0/0x400,nw_tos=28 actions=goto_table:${ingress + 1}`,
      `cookie=0x1060000000000, table=IngressMetric, priority=203,ct_state=+new+trk,ip,reg3=0x4,nw_tos=28 actions=move:NXM_NX_REG3[]->NXM_NX_REG6[],goto_table:${ingress + 1}`,
      `cookie=0x1060000000000, table=EgressMetric, priority=203,ct_state=+new+trk,ip,reg3=0x9,nw_tos=28 actions=move:NXM_NX_REG3[]->NXM_NX_REG5[],set_field:0->reg3,goto_table:${egress + 1}`,
      `cookie=0x1060000000000, table=${id('IngressDefaultRule')}, priority=202,ip,reg1=0x6,nw_tos=28 actions=controller(userdata=04)`,
      // A Service without endpoints (SvcNoEp): reported from above AntreaProxy's reject at 210, not rejected.
      `cookie=0x1060000000000, table=${id('EndpointDNAT')}, priority=211,ip,reg0=0x4000/0x4000,nw_tos=28 actions=controller(userdata=04)`,
      `cookie=0x1060000000000, table=${id('Output')}, priority=203,ip,reg0=0x200000/0x600000,reg1=0x8000,nw_tos=28 actions=output:NXM_NX_REG1[],controller(userdata=04)`,
      `cookie=0x1060000000000, table=${id('Output')}, priority=202,ip,reg0=0x200000/0x600000,nw_tos=28 actions=controller(userdata=04)`,
      // Hairpin leaves by in_port from service.ts's flow at 210: reported from above it.
      `cookie=0x1060000000000, table=${id('Output')}, priority=211,ct_mark=0x40/0x40,ip,reg0=0x200000/0x600000,nw_tos=28 actions=controller(userdata=04)`,
    ]);
  });

  it('live traffic: the source Pod’s new connections get the tag, output delivers with DSCP cleared; droppedOnly reports drops only', () => {
    const flows = text(
      traceflowFlows(ctx, {
        tag: 11,
        tunnelOfport: undefined,
        liveTraffic: true,
        droppedOnly: true,
        isolationDrops: [],
        live: { sender: { ofport: 5 }, dstIp: '10.10.1.6', protocol: 6, dstPort: 80 },
      }),
    );
    expect(flows.filter((f) => f.includes('controller'))).toHaveLength(4);
    // A live packet to a Service without endpoints is reported and still rejected (two packet-ins).
    expect(flows).toContain(
      `cookie=0x1060000000000, table=${ctx.pipeline.id('EndpointDNAT')}, priority=211,ip,reg0=0x4000/0x4000,nw_tos=44 actions=controller(userdata=04),controller(userdata=01)`,
    );
    expect(flows).toContain(
      `cookie=0x1060000000000, table=${ctx.pipeline.id('Output')}, priority=202,ip,reg0=0x200000/0x600000,nw_tos=44 actions=set_field:0->ip_dscp,output:NXM_NX_REG1[]`,
    );
    // Live hairpin traffic is delivered back through the port it came in by, untagged.
    expect(flows.find((f) => f.includes('priority=211,ct_mark'))).toBe(
      `cookie=0x1060000000000, table=${ctx.pipeline.id('Output')}, priority=211,ct_mark=0x40/0x40,ip,reg0=0x200000/0x600000,nw_tos=44 actions=set_field:0->ip_dscp,IN_PORT`,
    );
    expect(
      flows.find((f) => f.includes(`table=${ctx.pipeline.id('ConntrackState')},`)),
    ).toMatchInlineSnapshot(
      `"cookie=0x1060000000000, table=7, priority=100,ct_state=+new+trk,tcp,in_port=5,nw_dst=10.10.1.6,tp_dst=80 actions=set_field:11->ip_dscp,goto_table:8"`,
    );
  });
});
