import { describe, expect, it } from 'vitest';
import { parseConntrackDump, parseConntrackLine } from './conntrack-dump.js';

// As OVS 3.x's userspace datapath prints `dpctl/dump-conntrack -m -s` (no counters, no timestamps).
const NETDEV = [
  'tcp,orig=(src=10.10.0.2,dst=10.96.0.10,sport=40000,dport=80),reply=(src=10.10.0.3,dst=10.10.0.2,sport=8080,dport=40000),id=1234,zone=65520,status=CONFIRMED|SEEN_REPLY,timeout=86399,mark=19,labels=0x500000007,protoinfo=(state_orig=ESTABLISHED,state_reply=ESTABLISHED,wscale_orig=7,wscale_reply=7,flags_orig=WINDOW_SCALE|SACK_PERM,flags_reply=WINDOW_SCALE|SACK_PERM)',
  'udp,orig=(src=10.10.0.2,dst=10.10.1.5,sport=5353,dport=53),reply=(src=10.10.1.5,dst=10.10.0.2,sport=53,dport=5353),id=99,zone=65520,timeout=29',
  'icmp,orig=(src=10.10.0.2,dst=10.10.0.3,id=7,type=8,code=0),reply=(src=10.10.0.3,dst=10.10.0.2,id=7,type=0,code=0),id=5,zone=65520,timeout=29',
  'tcp,orig=(src=172.18.0.2,dst=172.18.0.3,sport=1,dport=2),reply=(src=172.18.0.3,dst=172.18.0.2,sport=2,dport=1),id=6,zone=65521,timeout=10,protoinfo=(state_orig=SYN_SENT,state_reply=LISTEN)',
].join('\n');

// The kernel datapath's form: counters and a start timestamp (Antrea's example line).
const KERNEL =
  'tcp,orig=(src=127.0.0.1,dst=127.0.0.1,sport=45218,dport=2379,packets=320108,bytes=24615344),reply=(src=127.0.0.1,dst=127.0.0.1,sport=2379,dport=45218,packets=239595,bytes=24347883),start=2020-07-24T05:07:03.998,id=3750535678,zone=65520,status=SEEN_REPLY|ASSURED|CONFIRMED|SRC_NAT_DONE|DST_NAT_DONE,timeout=86399,labels=0x200000001,protoinfo=(state_orig=ESTABLISHED,state_reply=ESTABLISHED)';

describe('dpctl/dump-conntrack parsing', () => {
  it('reads tuples, zone, mark, labels, status and TCP state of the userspace datapath', () => {
    const [tcp, udp, icmp] = parseConntrackDump(NETDEV, 65520);
    expect(tcp).toEqual({
      protocol: 6,
      orig: { src: '10.10.0.2', dst: '10.96.0.10', sport: 40000, dport: 80, packets: 0, bytes: 0 },
      reply: { src: '10.10.0.3', dst: '10.10.0.2', sport: 8080, dport: 40000, packets: 0, bytes: 0 },
      zone: 65520,
      mark: 19,
      labels: 0x500000007n,
      id: 1234,
      status: (1 << 3) | (1 << 1),
      timeout: 86399,
      tcpState: 'ESTABLISHED',
      startMs: undefined,
      stopMs: undefined,
    });
    expect(udp).toMatchObject({ protocol: 17, tcpState: '', mark: 0, labels: 0n, timeout: 29 });
    expect(icmp).toMatchObject({ protocol: 1, orig: { sport: 7, dport: 7 } });
  });

  it('keeps only the asked zone', () => {
    expect(parseConntrackDump(NETDEV, 65520)).toHaveLength(3);
    expect(parseConntrackDump(NETDEV, 65521).map((e) => e.orig.src)).toEqual(['172.18.0.2']);
    expect(parseConntrackDump(NETDEV, 1)).toEqual([]);
  });

  it('reads counters and start time where the datapath keeps them', () => {
    const e = parseConntrackLine(KERNEL)!;
    expect(e.orig).toMatchObject({ packets: 320108, bytes: 24615344 });
    expect(e.reply).toMatchObject({ packets: 239595, bytes: 24347883 });
    expect(new Date(e.startMs!).toISOString()).toBe('2020-07-24T05:07:03.998Z');
    expect(e.id).toBe(3750535678);
  });

  it('names TCP states as the kernel does: the later direction, coalesced', () => {
    const state = (s: string) =>
      parseConntrackLine(
        `tcp,orig=(src=1.1.1.1,dst=2.2.2.2,sport=1,dport=2),reply=(src=2.2.2.2,dst=1.1.1.1,sport=2,dport=1),zone=65520,protoinfo=(${s})`,
      )!.tcpState;
    expect(state('state_orig=FIN_WAIT_2,state_reply=ESTABLISHED')).toBe('TIME_WAIT');
    expect(state('state_orig=SYN_SENT,state_reply=SYN_RECV')).toBe('ESTABLISHED');
    expect(state('state_orig=CLOSED,state_reply=CLOSED')).toBe('CLOSE');
    expect(state('state=TIME_WAIT')).toBe('TIME_WAIT');
  });

  it('skips what is not an entry', () => {
    expect(parseConntrackLine('')).toBeUndefined();
    expect(parseConntrackLine('ovs-appctl: something went wrong')).toBeUndefined();
    expect(parseConntrackLine('tcp,orig=(src=1.1.1.1),reply=(),zone=65520')).toBeUndefined();
  });
});
