import { load, subfield } from '../codec/actions.js';
import { OFPP } from '../codec/constants.js';
import type { Flow } from '../codec/flow-mod.js';
import { buildMatch } from '../codec/match.js';

/**
 * Flows covering every match field and action this package supports, each with the text
 * `ovs-ofctl -O OpenFlow15 dump-flows --no-stats` prints for it. Shared by unit tests (formatter,
 * round trips) and integration tests (install through our client, read back with ovs-ofctl).
 */
export interface SampleFlow {
  name: string;
  flow: Flow;
  text: string;
}

export const SAMPLE_FLOWS: SampleFlow[] = [
  {
    name: 'conjunctive clause on nw_src',
    flow: {
      table: 10,
      priority: 200,
      cookie: 0x1n,
      match: buildMatch({ ip: true, nw_src: '10.0.0.0/24' }),
      actions: [{ type: 'conjunction', id: 1, clause: 1, nClauses: 3 }],
    },
    text: 'cookie=0x1, table=10, priority=200,ip,nw_src=10.0.0.0/24 actions=conjunction(1,1/3)',
  },
  {
    name: 'conj_id action flow with ct commit and ct_label load',
    flow: {
      table: 10,
      priority: 190,
      cookie: 0x2000000000001n,
      match: buildMatch({ ip: true, conj_id: 7 }),
      actions: [
        load('reg3', 7),
        {
          type: 'ct',
          commit: true,
          zone: 65520,
          exec: [load('ct_label', 7, 0, 31), load('ct_mark', 0x10, 0, 7)],
        },
        { type: 'goto_table', table: 20 },
      ],
    },
    text:
      'cookie=0x2000000000001, table=10, priority=190,conj_id=7,ip actions=set_field:0x7->reg3,' +
      'ct(commit,zone=65520,exec(set_field:0x7/0xffffffff->ct_label,set_field:0x10/0xff->ct_mark)),goto_table:20',
  },
  {
    name: 'ct_state, ct_mark, ct_label masks and tcp port',
    flow: {
      table: 2,
      priority: 100,
      match: buildMatch({
        tcp: true,
        ct_state: '+trk+new-inv',
        ct_mark: '0x1/0xf',
        ct_label: '0x1/0xff',
        tcp_dst: 80,
      }),
      actions: [
        {
          type: 'ct',
          commit: true,
          zone: 65520,
          nat: { kind: 'dst', addrMin: '10.0.0.1', addrMax: '10.0.0.3', portMin: 80, portMax: 90 },
          exec: [{ type: 'set_field', field: 'ct_mark', value: 0x10n, mask: 0x10n }],
        },
        {
          type: 'controller',
          reason: 'no_match',
          maxLen: 128,
          controllerId: 7,
          userdata: Buffer.from([1, 2]),
          pause: true,
        },
      ],
    },
    text:
      'table=2, priority=100,ct_state=+new-inv+trk,ct_mark=0x1/0xf,ct_label=0x1/0xff,tcp,tp_dst=80 ' +
      'actions=ct(commit,zone=65520,nat(dst=10.0.0.1-10.0.0.3:80-90),exec(set_field:0x10/0x10->ct_mark)),' +
      'controller(reason=no_match,max_len=128,id=7,userdata=01.02,pause)',
  },
  {
    name: 'ct with zone from a register, recirculation and bare nat; reserved ports',
    flow: {
      table: 3,
      priority: 10,
      match: buildMatch({ ip: true }),
      actions: [
        { type: 'ct', table: 5, zone: subfield('reg8', 0, 15), nat: {} },
        { type: 'dec_ttl' },
        { type: 'group', groupId: 4 },
        { type: 'output', port: 3 },
        { type: 'output', port: OFPP.IN_PORT },
        { type: 'output', port: OFPP.LOCAL },
        { type: 'output', port: OFPP.CONTROLLER },
        { type: 'note', data: Buffer.from([1, 2, 3, 0, 0, 0]) },
      ],
    },
    text:
      'table=3, priority=10,ip actions=ct(table=5,zone=NXM_NX_REG8[0..15],nat),dec_ttl,group:4,output:3,' +
      'IN_PORT,LOCAL,CONTROLLER:65535,note:01.02.03.00.00.00',
  },
  {
    name: 'learn with delete_learned and ct_clear',
    flow: {
      table: 3,
      match: buildMatch({ tcp: true }),
      actions: [
        {
          type: 'learn',
          table: 9,
          idleTimeout: 10,
          priority: 200,
          deleteLearned: true,
          cookie: 0x3n,
          specs: [
            { kind: 'match', dst: subfield('eth_type'), src: { value: 0x800n } },
            { kind: 'match', dst: subfield('ip_proto'), src: { value: 6n } },
            { kind: 'match', dst: subfield('nw_src'), src: subfield('nw_src') },
            { kind: 'match', dst: subfield('tcp_dst'), src: subfield('tcp_dst') },
            { kind: 'load', dst: subfield('reg3'), src: subfield('reg3') },
            { kind: 'load', dst: subfield('reg4', 16, 18), src: { value: 1n } },
          ],
        },
        { type: 'ct_clear' },
      ],
    },
    text:
      'table=3, tcp actions=learn(table=9,idle_timeout=10,priority=200,delete_learned,cookie=0x3,eth_type=0x800,' +
      'nw_proto=6,NXM_OF_IP_SRC[],NXM_OF_TCP_DST[],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x1->NXM_NX_REG4[16..18]),ct_clear',
  },
  {
    name: 'tunnel, pkt_mark, conj_id, in_port, vlan, masked eth_src, ipv6_src, dscp',
    flow: {
      priority: 5,
      match: buildMatch({
        conj_id: 7,
        ipv6: true,
        ipv6_src: 'fd00::/64',
        tun_id: 5,
        tun_dst: '1.1.1.1',
        tun_src: '2.2.2.0/24',
        pkt_mark: 3,
        in_port: 4,
        vlan_vid: 0x1005,
        eth_src: '00:11:22:00:00:00/ff:ff:ff:00:00:00',
        ip_dscp: 2,
      }),
      actions: [],
    },
    text:
      'priority=5,pkt_mark=0x3,conj_id=7,ipv6,tun_id=0x5,tun_src=2.2.2.0/24,tun_dst=1.1.1.1,in_port=4,dl_vlan=5,' +
      'dl_src=00:11:22:00:00:00/ff:ff:ff:00:00:00,ipv6_src=fd00::/64,nw_tos=8 actions=drop',
  },
  {
    name: 'icmp type/code, xxreg3 (shown as reg15), output to a register',
    flow: {
      match: buildMatch({ icmp: true, icmp_type: 8, icmp_code: 0, xxreg3: { value: 1, mask: 0xffff } }),
      actions: [{ type: 'output_reg', src: subfield('reg1') }],
    },
    text: 'icmp,reg15=0x1/0xffff,icmp_type=8,icmp_code=0 actions=output:NXM_NX_REG1[]',
  },
  {
    name: 'arp fields',
    flow: {
      match: buildMatch({
        arp: true,
        arp_op: 1,
        arp_spa: '1.2.3.4',
        arp_tpa: '1.2.3.0/24',
        arp_sha: '00:00:00:00:00:01',
        arp_tha: '00:00:00:00:00:00',
      }),
      actions: [],
    },
    text: 'arp,arp_spa=1.2.3.4,arp_tpa=1.2.3.0/24,arp_op=1,arp_sha=00:00:00:00:00:01,arp_tha=00:00:00:00:00:00 actions=drop',
  },
  {
    name: 'tcp6 flags, masked port, metadata; instructions',
    flow: {
      match: buildMatch({ tcp6: true, tcp_flags: '+syn-ack', tcp_src: '0x100/0xff00', metadata: '0x5/0xff' }),
      actions: [
        { type: 'clear_actions' },
        { type: 'write_actions', actions: [{ type: 'output', port: 1 }] },
        { type: 'write_metadata', value: 1n, mask: 0xffn },
      ],
    },
    text:
      'tcp6,metadata=0x5/0xff,tp_src=0x100/0xff00,tcp_flags=+syn-ack ' +
      'actions=clear_actions,write_actions(output:1),write_metadata:0x1/0xff',
  },
  {
    name: 'udp with ct_state/ct_zone; push_vlan + set vlan_vid',
    flow: {
      match: buildMatch({ udp: true, ct_state: '+trk', ct_zone: 5, udp_src: 1000 }),
      actions: [
        { type: 'push_vlan', ethertype: 0x8100 },
        { type: 'set_field', field: 'vlan_vid', value: 0x1064n },
        { type: 'resubmit', table: 4 },
      ],
    },
    text: 'ct_state=+trk,ct_zone=5,udp,tp_src=1000 actions=push_vlan:0x8100,set_field:4196->vlan_vid,resubmit(,4)',
  },
  {
    name: 'sctp, in_port LOCAL, set_field on addresses',
    flow: {
      match: buildMatch({
        sctp: true,
        sctp_src: 5,
        sctp_dst: 6,
        in_port: OFPP.LOCAL,
        eth_dst: 'aa:bb:cc:dd:ee:ff',
      }),
      actions: [
        { type: 'set_field', field: 'nw_dst', value: 0x0a000001n },
        { type: 'set_field', field: 'eth_src', value: 0x0a0b0c0d0e0fn },
        { type: 'set_field', field: 'tun_dst', value: 0xc0a80102n },
        { type: 'output', port: OFPP.CONTROLLER, maxLen: 128 },
      ],
    },
    text:
      'sctp,in_port=LOCAL,dl_dst=aa:bb:cc:dd:ee:ff,tp_src=5,tp_dst=6 actions=set_field:10.0.0.1->ip_dst,' +
      'set_field:0a:0b:0c:0d:0e:0f->eth_src,set_field:192.168.1.2->tun_dst,CONTROLLER:128',
  },
  {
    name: 'icmp6 neighbour solicitation, move, snat',
    flow: {
      match: buildMatch({ icmp6: true, icmpv6_type: 135, nd_target: 'fe80::1' }),
      actions: [{ type: 'move', src: subfield('in_port'), dst: subfield('reg1', 0, 15) }],
    },
    text: 'icmp6,icmp_type=135,nd_target=fe80::1 actions=move:NXM_OF_IN_PORT[]->NXM_NX_REG1[0..15]',
  },
  {
    name: 'non-CIDR mask, resubmit forms, snat with random, ct exec move',
    flow: {
      idleTimeout: 30,
      hardTimeout: 60,
      match: buildMatch({ ip: true, nw_src: '10.0.0.0/255.0.255.0' }),
      actions: [
        { type: 'resubmit', port: 4, table: 5 },
        { type: 'resubmit', port: 6 },
        {
          type: 'ct',
          commit: true,
          nat: { kind: 'src', addrMin: '1.1.1.1', portMin: 1000, portMax: 2000, random: true },
        },
        {
          type: 'ct',
          commit: true,
          zone: 5,
          exec: [{ type: 'move', src: subfield('in_port'), dst: subfield('ct_mark', 0, 15) }],
        },
      ],
    },
    text:
      'idle_timeout=30, hard_timeout=60, ip,nw_src=10.0.0.0/255.0.255.0 actions=resubmit(4,5),resubmit:6,' +
      'ct(commit,nat(src=1.1.1.1:1000-2000,random)),ct(commit,zone=5,exec(move:NXM_OF_IN_PORT[]->NXM_NX_CT_MARK[0..15]))',
  },
  {
    name: 'ipv6 dst and nat with IPv6 range',
    flow: {
      table: 7,
      priority: 300,
      match: buildMatch({ ipv6: true, ipv6_dst: 'fd00:10:96::a', reg0: '0x10000/0x10000', reg1: 0x8001 }),
      actions: [
        {
          type: 'ct',
          commit: true,
          zone: 65510,
          nat: { kind: 'dst', addrMin: 'fd00::1', addrMax: 'fd00::2', portMin: 443 },
        },
      ],
    },
    text:
      'table=7, priority=300,ipv6,reg0=0x10000/0x10000,reg1=0x8001,ipv6_dst=fd00:10:96::a ' +
      'actions=ct(commit,zone=65510,nat(dst=[fd00::1]-[fd00::2]:443))',
  },
  {
    name: 'conntrack original-direction tuple (needs a valid ct_state)',
    flow: {
      table: 60,
      priority: 10,
      match: buildMatch({
        ip: true,
        ct_state: '+trk-inv',
        ct_nw_src: '1.1.1.1',
        ct_nw_dst: '2.2.2.0/24',
        ct_nw_proto: 6,
        ct_tp_dst: 80,
      }),
      actions: [],
    },
    text: 'table=60, priority=10,ct_state=-inv+trk,ct_nw_src=1.1.1.1,ct_nw_dst=2.2.2.0/24,ct_nw_proto=6,ct_tp_dst=80,ip actions=drop',
  },
  {
    name: 'IPv6 underlay tunnel endpoints and TTL',
    flow: {
      table: 61,
      match: buildMatch({ ip: true, nw_ttl: 64, tun_ipv6_dst: 'fd00::5', tun_ipv6_src: 'fd00::/64' }),
      actions: [{ type: 'set_field', field: 'tun_ipv6_dst', value: 0xfd000000000000000000000000000009n }],
    },
    text: 'table=61, ip,tun_ipv6_src=fd00::/64,tun_ipv6_dst=fd00::5,nw_ttl=64 actions=set_field:fd00::9->tun_ipv6_dst',
  },
];
