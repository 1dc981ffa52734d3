import { formatFlow } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../pipeline.js';
import { pipelineFlows } from './pipeline-flows.js';
import {
  trafficControlMarkFlows,
  trafficControlReturnFlows,
  trafficControlStaticFlows,
} from './traffic-control.js';

const pipeline = new Pipeline(new Set([...DEFAULT_FEATURES, 'trafficControl']));
const ctx = { pipeline, cookies: new CookieAllocator(1) };
const text = (flows: ReturnType<typeof trafficControlStaticFlows>) => flows.map((f) => formatFlow(f));

describe('TrafficControl flows', () => {
  it('has its table only with the gate: the default pipeline keeps its ids', () => {
    const plain = new Pipeline(DEFAULT_FEATURES);
    expect(plain.has('TrafficControl')).toBe(false);
    expect(pipeline.id('TrafficControl')).toBe(plain.id('L2ForwardingCalc') + 1);
    expect(pipeline.next('L2ForwardingCalc')).toBe(pipeline.id('TrafficControl'));
    expect(pipeline.next('TrafficControl')).toBe(pipeline.id('IngressSecurityClassifier'));
    expect(pipeline.id('Output')).toBe(plain.id('Output') + 1);
    const tcMiss = pipelineFlows(ctx).find((f) => f.table === pipeline.id('TrafficControl'));
    expect(tcMiss && formatFlow(tcMiss)).toBe(
      `cookie=0x1010000000000, table=${pipeline.id('TrafficControl')}, priority=0 actions=goto_table:${pipeline.id('IngressSecurityClassifier')}`,
    );
  });

  it('outputs mirrored packets twice, redirected ones to the TrafficControl port, returned ones straight', () => {
    expect(text(trafficControlStaticFlows(ctx))).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=29, priority=211,reg0=0x200000/0x600000,reg4=0x400000/0xc00000 actions=output:NXM_NX_REG1[],output:NXM_NX_REG9[]",
        "cookie=0x1010000000000, table=29, priority=211,reg0=0x200000/0x600000,reg4=0x800000/0xc00000 actions=output:NXM_NX_REG9[]",
        "cookie=0x1010000000000, table=22, priority=210,reg0=0x200006/0x60000f actions=goto_table:29",
      ]
    `);
  });

  it('classifies a return port and routes its packets again', () => {
    expect(text(trafficControlReturnFlows(ctx, 7))).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=3, priority=200,in_port=7 actions=set_field:0x6/0xf->reg0,goto_table:17",
      ]
    `);
  });

  it('marks packets to (Ingress) and from (Egress) each selected Pod', () => {
    const both = trafficControlMarkFlows(ctx, {
      podOfports: [12, 5],
      targetOfport: 40,
      direction: 'Both',
      action: 'Mirror',
    });
    expect(text(both)).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=22, priority=200,reg1=0x5 actions=set_field:0x28->reg9,set_field:0x400000/0xc00000->reg4,goto_table:23",
        "cookie=0x1010000000000, table=22, priority=200,in_port=5 actions=set_field:0x28->reg9,set_field:0x400000/0xc00000->reg4,goto_table:23",
        "cookie=0x1010000000000, table=22, priority=200,reg1=0xc actions=set_field:0x28->reg9,set_field:0x400000/0xc00000->reg4,goto_table:23",
        "cookie=0x1010000000000, table=22, priority=200,in_port=12 actions=set_field:0x28->reg9,set_field:0x400000/0xc00000->reg4,goto_table:23",
      ]
    `);
    const ingress = trafficControlMarkFlows(ctx, {
      podOfports: [5],
      targetOfport: 41,
      direction: 'Ingress',
      action: 'Redirect',
    });
    expect(text(ingress)).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=22, priority=200,reg1=0x5 actions=set_field:0x29->reg9,set_field:0x800000/0xc00000->reg4,goto_table:23",
      ]
    `);
    const egress = trafficControlMarkFlows(ctx, {
      podOfports: [5],
      targetOfport: 41,
      direction: 'Egress',
      action: 'Redirect',
    });
    expect(text(egress).map((t) => t.includes('in_port=5'))).toEqual([true]);
  });
});
