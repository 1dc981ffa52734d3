import { formatFlow } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../pipeline.js';
import { egressFlows, egressStaticFlows } from './egress.js';

const ctx = {
  pipeline: new Pipeline(new Set([...DEFAULT_FEATURES, 'egress'])),
  cookies: new CookieAllocator(1),
};
const text = (flows: ReturnType<typeof egressFlows>) => flows.map((f) => formatFlow(f));
const gatewayMac = '0a:00:00:00:00:01';

describe('Egress flows', () => {
  it('puts EgressMark between L3Forwarding and L3DecTTL, missing to L2ForwardingCalc', () => {
    const p = ctx.pipeline;
    expect(p.id('EgressMark')).toBe(p.id('L3Forwarding') + 1);
    expect(p.table('EgressMark').missTarget).toBe(p.id('L2ForwardingCalc'));
    expect(p.next('EgressMark')).toBe(p.id('L3DecTTL'));
    expect(text(egressStaticFlows(ctx, ['198.19.5.12', '198.19.5.11']))).toEqual([
      'cookie=0x1040000000000, table=18, priority=210,ip,nw_dst=198.19.5.11 actions=goto_table:22',
      'cookie=0x1040000000000, table=18, priority=210,ip,nw_dst=198.19.5.12 actions=goto_table:22',
      'cookie=0x1040000000000, table=17, priority=190,ct_state=-rpl+trk,ip,reg0=0x3/0xf actions=goto_table:18',
      'cookie=0x1040000000000, table=17, priority=190,ct_state=-rpl+trk,ip,reg0=0x1/0xf actions=goto_table:18',
    ]);
  });

  it('lets exceptCIDRs (normalized, IPv4 only) leave EgressMark like Node IPs', () => {
    expect(
      text(egressStaticFlows(ctx, ['198.19.5.11'], ['192.168.7.9/16', '10.0.0.0/8', 'fd00::/8'])),
    ).toEqual([
      'cookie=0x1040000000000, table=18, priority=210,ip,nw_dst=198.19.5.11 actions=goto_table:22',
      'cookie=0x1040000000000, table=18, priority=210,ip,nw_dst=10.0.0.0/8 actions=goto_table:22',
      'cookie=0x1040000000000, table=18, priority=210,ip,nw_dst=192.168.0.0/16 actions=goto_table:22',
      'cookie=0x1040000000000, table=17, priority=190,ct_state=-rpl+trk,ip,reg0=0x3/0xf actions=goto_table:18',
      'cookie=0x1040000000000, table=17, priority=190,ct_state=-rpl+trk,ip,reg0=0x1/0xf actions=goto_table:18',
    ]);
  });

  it('on the Egress Node: its source MAC on local and tunneled members, to the gateway', () => {
    expect(
      text(egressFlows(ctx, { egressIp: '198.19.5.200', mark: 3, localPodIps: ['10.244.0.5'], gatewayMac })),
    ).toEqual([
      'cookie=0x1040000000000, table=18, priority=200,ip,reg0=0x3/0xf,nw_src=10.244.0.5 actions=set_field:aa:bb:cc:dd:ef:03->eth_src,set_field:0x20/0xf0->reg0,goto_table:19',
      'cookie=0x1040000000000, table=18, priority=200,ip,reg0=0x1/0xf,tun_dst=198.19.5.200 actions=set_field:aa:bb:cc:dd:ef:03->eth_src,set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:19',
    ]);
  });

  it('on other Nodes: local members into the tunnel to the Egress IP', () => {
    expect(
      text(
        egressFlows(ctx, {
          egressIp: '198.19.5.200',
          mark: undefined,
          localPodIps: ['10.244.1.5'],
          gatewayMac,
        }),
      ),
    ).toEqual([
      'cookie=0x1040000000000, table=18, priority=200,ip,reg0=0x3/0xf,nw_src=10.244.1.5 actions=set_field:0a:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:198.19.5.200->tun_dst,set_field:0x10/0xf0->reg0,goto_table:19',
    ]);
    expect(
      egressFlows(ctx, { egressIp: '198.19.5.200', mark: undefined, localPodIps: [], gatewayMac }),
    ).toEqual([]);
  });
});
