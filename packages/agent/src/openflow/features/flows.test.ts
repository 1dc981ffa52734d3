import { formatFlow, formatGroup } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../pipeline.js';
import { gatewayFlows } from './gateway.js';
import { pipelineFlows } from './pipeline-flows.js';
import { podFlows } from './pod-connectivity.js';
import { endpointSelectionFor, servicePortFlows, serviceStaticFlows } from './service.js';
import { remoteNodeTunnelFlows, tunnelFlows } from './tunnel.js';

const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
const text = (flows: ReturnType<typeof podFlows>) => flows.map((f) => formatFlow(f));

describe('flow builders', () => {
  it('pipeline flows', () => {
    expect(text(pipelineFlows(ctx))).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, priority=0 actions=drop",
        "cookie=0x1010000000000, table=1, priority=0 actions=drop",
        "cookie=0x1010000000000, table=2, priority=0 actions=drop",
        "cookie=0x1010000000000, table=3, priority=0 actions=drop",
        "cookie=0x1010000000000, table=4, priority=0 actions=drop",
        "cookie=0x1010000000000, table=5, priority=0 actions=goto_table:6",
        "cookie=0x1010000000000, table=6, priority=0 actions=goto_table:7",
        "cookie=0x1010000000000, table=7, priority=0 actions=goto_table:8",
        "cookie=0x1010000000000, table=8, priority=0 actions=goto_table:9",
        "cookie=0x1010000000000, table=9, priority=0 actions=goto_table:10",
        "cookie=0x1010000000000, table=10, priority=0 actions=goto_table:11",
        "cookie=0x1010000000000, table=11, priority=0 actions=goto_table:12",
        "cookie=0x1010000000000, table=12, priority=0 actions=goto_table:13",
        "cookie=0x1010000000000, table=13, priority=0 actions=goto_table:14",
        "cookie=0x1010000000000, table=14, priority=0 actions=goto_table:15",
        "cookie=0x1010000000000, table=15, priority=0 actions=goto_table:16",
        "cookie=0x1010000000000, table=16, priority=0 actions=goto_table:17",
        "cookie=0x1010000000000, table=17, priority=0 actions=goto_table:21",
        "cookie=0x1010000000000, table=18, priority=0 actions=goto_table:19",
        "cookie=0x1010000000000, table=19, priority=0 actions=goto_table:20",
        "cookie=0x1010000000000, table=20, priority=0 actions=goto_table:21",
        "cookie=0x1010000000000, table=21, priority=0 actions=goto_table:22",
        "cookie=0x1010000000000, table=22, priority=0 actions=goto_table:23",
        "cookie=0x1010000000000, table=23, priority=0 actions=goto_table:24",
        "cookie=0x1010000000000, table=24, priority=0 actions=goto_table:25",
        "cookie=0x1010000000000, table=25, priority=0 actions=goto_table:26",
        "cookie=0x1010000000000, table=26, priority=0 actions=goto_table:27",
        "cookie=0x1010000000000, table=27, priority=0 actions=goto_table:28",
        "cookie=0x1010000000000, table=28, priority=0 actions=drop",
        "cookie=0x1010000000000, priority=200,arp actions=goto_table:1",
        "cookie=0x1010000000000, priority=200,ip actions=goto_table:3",
        "cookie=0x1010000000000, table=2, priority=190,arp actions=NORMAL",
        "cookie=0x1010000000000, table=6, priority=200,ip actions=ct(table=7,zone=65520,nat)",
        "cookie=0x1010000000000, table=7, priority=190,ct_state=+inv+trk,ip actions=drop",
        "cookie=0x1010000000000, table=18, priority=210,ip,reg0=0x2/0xf actions=goto_table:19",
        "cookie=0x1010000000000, table=18, priority=200,ip actions=dec_ttl,goto_table:19",
        "cookie=0x1010000000000, table=27, priority=200,ct_state=+new+trk,ip actions=ct(commit,table=28,zone=65520,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))",
        "cookie=0x1010000000000, table=28, priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]",
      ]
    `);
  });
  it('gateway flows', () => {
    expect(
      text(gatewayFlows(ctx, { ofport: 32769, mac: '02:00:00:00:00:01', ip: '10.10.1.1' })),
    ).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=1, priority=200,arp,in_port=32769,arp_spa=10.10.1.1,arp_sha=02:00:00:00:00:01 actions=goto_table:2",
        "cookie=0x1010000000000, table=3, priority=200,in_port=32769 actions=set_field:0x2/0xf->reg0,goto_table:4",
        "cookie=0x1010000000000, table=4, priority=200,ip,in_port=32769 actions=goto_table:5",
        "cookie=0x1010000000000, table=17, priority=210,ip,reg0=0x200/0x200,nw_dst=10.10.1.1 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:18",
        "cookie=0x1010000000000, table=21, priority=200,dl_dst=02:00:00:00:00:01 actions=set_field:0x8001->reg1,set_field:0x200000/0x600000->reg0,goto_table:22",
      ]
    `);
  });
  it('pod flows', () => {
    expect(
      text(podFlows(ctx, { ofport: 5, mac: '02:00:00:00:00:05', ip: '10.10.1.5' }, '02:00:00:00:00:01')),
    ).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=1, priority=200,arp,in_port=5,arp_spa=10.10.1.5,arp_sha=02:00:00:00:00:05 actions=goto_table:2",
        "cookie=0x1010000000000, table=3, priority=190,in_port=5 actions=set_field:0x3/0xf->reg0,goto_table:4",
        "cookie=0x1010000000000, table=4, priority=200,ip,in_port=5,dl_src=02:00:00:00:00:05,nw_src=10.10.1.5 actions=goto_table:5",
        "cookie=0x1010000000000, table=17, priority=200,ip,reg0=0x200/0x200,nw_dst=10.10.1.5 actions=set_field:02:00:00:00:00:01->eth_src,set_field:02:00:00:00:00:05->eth_dst,set_field:0x30/0xf0->reg0,goto_table:18",
        "cookie=0x1010000000000, table=21, priority=200,dl_dst=02:00:00:00:00:05 actions=set_field:0x5->reg1,set_field:0x200000/0x600000->reg0,goto_table:22",
        "cookie=0x1030000000000, table=19, priority=190,ct_state=+new+trk,ip,nw_src=10.10.1.5,nw_dst=10.10.1.5 actions=ct(commit,table=20,zone=65520,exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark))",
      ]
    `);
  });
  it('tunnel flows', () => {
    expect(text(tunnelFlows(ctx, 32768))).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=3, priority=200,in_port=32768 actions=set_field:0x1/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:5",
        "cookie=0x1010000000000, table=21, priority=200,dl_dst=aa:bb:cc:dd:ee:ff actions=set_field:0x8000->reg1,set_field:0x200000/0x600000->reg0,goto_table:22",
      ]
    `);
    expect(
      text(
        remoteNodeTunnelFlows(
          ctx,
          { podCidr: '10.10.2.0/24', nodeIp: '198.18.3.12', gatewayIp: '10.10.2.1' },
          '02:00:00:00:00:01',
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "cookie=0x1010000000000, table=2, priority=200,arp,arp_tpa=10.10.2.1,arp_op=1 actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],set_field:aa:bb:cc:dd:ee:ff->eth_src,set_field:2->arp_op,move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[],set_field:aa:bb:cc:dd:ee:ff->arp_sha,move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[],set_field:10.10.2.1->arp_spa,IN_PORT",
        "cookie=0x1010000000000, table=17, priority=200,ip,nw_dst=10.10.2.0/24 actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:198.18.3.12->tun_dst,set_field:0x10/0xf0->reg0,goto_table:18",
      ]
    `);
  });

  it('service flows', () => {
    expect(text(serviceStaticFlows(ctx))).toMatchInlineSnapshot(`
      [
        "cookie=0x1030000000000, table=5, priority=200,ip,nw_dst=169.254.0.253 actions=ct(table=6,zone=65521,nat)",
        "cookie=0x1030000000000, table=7, priority=200,ct_state=-new-inv+trk,ct_mark=0x10/0x10,ip actions=set_field:0x200/0x200->reg0,goto_table:13",
        "cookie=0x1030000000000, table=7, priority=190,ct_state=-new-inv+trk,ip actions=goto_table:13",
        "cookie=0x1030000000000, table=8, priority=200,ip actions=resubmit(,10),resubmit(,11)",
        "cookie=0x1030000000000, table=10, priority=1 actions=set_field:0x10000/0x70000->reg4",
        "cookie=0x1030000000000, table=12, priority=210,reg0=0x4000/0x4000 actions=controller(userdata=01)",
        "cookie=0x1030000000000, table=20, priority=200,ct_state=+new+trk,ct_mark=0x40/0x40,ip actions=ct(commit,table=21,zone=65521,nat(src=169.254.0.253),exec(set_field:0x10/0x10->ct_mark,set_field:0x40/0x40->ct_mark))",
        "cookie=0x1030000000000, table=20, priority=190,ct_state=-new-rpl+trk,ct_mark=0x20/0x20,ip actions=ct(table=21,zone=65521,nat)",
        "cookie=0x1030000000000, table=27, priority=210,ct_state=+new+trk,ct_mark=0x10/0x10,ip actions=goto_table:28",
        "cookie=0x1030000000000, table=28, priority=210,ct_mark=0x40/0x40,reg0=0x200000/0x600000 actions=IN_PORT",
      ]
    `);
    const endpoints = [
      { ip: '10.10.1.5', port: 8080 },
      { ip: '10.10.2.7', port: 8080 },
    ];
    const svc = { clusterIp: '10.96.0.10', port: 80, protocol: 'TCP' as const, groupId: 3, endpoints };
    const plain = servicePortFlows(ctx, svc, 'fiveTuple');
    expect([...text(plain.flows), ...plain.groups.map(formatGroup)]).toMatchInlineSnapshot(`
      [
        "cookie=0x1030000000000, table=11, priority=200,tcp,reg4=0x10000/0x70000,nw_dst=10.96.0.10,tp_dst=80 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x3->reg7,group:3",
        "cookie=0x1030000000000, table=12, priority=200,tcp,reg3=0xa0a0105,reg4=0x21f90/0x7ffff,reg7=0x3 actions=ct(commit,table=13,zone=65520,nat(dst=10.10.1.5:8080),exec(set_field:0x10/0x10->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))",
        "cookie=0x1030000000000, table=12, priority=200,tcp,reg3=0xa0a0207,reg4=0x21f90/0x7ffff,reg7=0x3 actions=ct(commit,table=13,zone=65520,nat(dst=10.10.2.7:8080),exec(set_field:0x10/0x10->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))",
        "group_id=3,type=select,selection_method=hash,fields(ip_src,ip_dst,tcp_src,tcp_dst),bucket=bucket_id:0,weight:100,actions=set_field:0xa0a0105->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,12),bucket=bucket_id:1,weight:100,actions=set_field:0xa0a0207->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,12)",
      ]
    `);
    const sticky = servicePortFlows(
      ctx,
      { ...svc, protocol: 'UDP', affinityTimeoutSeconds: 10800 },
      'fiveTuple',
    );
    expect([...text(sticky.flows), ...sticky.groups.map(formatGroup)]).toMatchInlineSnapshot(`
      [
        "cookie=0x1030000000000, table=11, priority=200,udp,reg4=0x10000/0x70000,nw_dst=10.96.0.10,tp_dst=80 actions=set_field:0x200/0x200->reg0,set_field:0x30000/0x70000->reg4,set_field:0x3->reg7,group:3",
        "cookie=0x1030000000000, table=11, priority=190,udp,reg4=0x30000/0x70000,nw_dst=10.96.0.10,tp_dst=80 actions=learn(table=10,hard_timeout=10800,priority=200,delete_learned,cookie=0x1030000000003,eth_type=0x800,nw_proto=17,NXM_OF_IP_DST[],NXM_OF_UDP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG7[]->NXM_NX_REG7[],load:NXM_NX_REG4[21]->NXM_NX_REG4[21],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9]),set_field:0x20000/0x70000->reg4,goto_table:12",
        "cookie=0x1030000000000, table=12, priority=200,udp,reg3=0xa0a0105,reg4=0x21f90/0x7ffff,reg7=0x3 actions=ct(commit,table=13,zone=65520,nat(dst=10.10.1.5:8080),exec(set_field:0x10/0x10->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))",
        "cookie=0x1030000000000, table=12, priority=200,udp,reg3=0xa0a0207,reg4=0x21f90/0x7ffff,reg7=0x3 actions=ct(commit,table=13,zone=65520,nat(dst=10.10.2.7:8080),exec(set_field:0x10/0x10->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))",
        "group_id=3,type=select,selection_method=hash,fields(ip_src,ip_dst,udp_src,udp_dst),bucket=bucket_id:0,weight:100,actions=set_field:0xa0a0105->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,11),bucket=bucket_id:1,weight:100,actions=set_field:0xa0a0207->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,11)",
      ]
    `);
    const empty = servicePortFlows(ctx, { ...svc, endpoints: [] }, 'fiveTuple');
    expect(text(empty.flows)).toMatchInlineSnapshot(`
      [
        "cookie=0x1030000000000, table=11, priority=200,tcp,reg4=0x10000/0x70000,nw_dst=10.96.0.10,tp_dst=80 actions=set_field:0x4000/0x4000->reg0,goto_table:12",
      ]
    `);
    expect(empty.groups[0]!.buckets).toEqual([]);
    // The kernel datapath keeps OVS's default (dp_hash in the datapath, as Antrea): same group, no method.
    const kernel = servicePortFlows(ctx, svc, 'datapath');
    expect(kernel.flows).toEqual(plain.flows);
    expect(formatGroup(kernel.groups[0]!)).toBe(
      formatGroup(plain.groups[0]!).replace(
        ',selection_method=hash,fields(ip_src,ip_dst,tcp_src,tcp_dst)',
        '',
      ),
    );
    expect(endpointSelectionFor('system')).toBe('datapath');
    expect(endpointSelectionFor('netdev')).toBe('fiveTuple');
  });
});
