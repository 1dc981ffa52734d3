import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentError } from '../errors.js';
import { buildCaptureFilter, type CaptureFilterInput } from './capture-filter.js';
import { PcapStreamReader } from './pcap-stream.js';

const A = '10.244.1.2';
const B = '10.244.2.3';

describe('buildCaptureFilter: the expression', () => {
  it('matches the IP family, protocol, addresses and ports in Antrea’s order', () => {
    expect(
      buildCaptureFilter({
        srcIp: A,
        dstIp: B,
        packet: { protocol: 'tcp', transportHeader: { tcp: { srcPort: 12345, dstPort: 80 } } },
      }),
    ).toBe(`ip proto 6 and src host ${A} and dst host ${B} and src port 12345 and dst port 80`);
    expect(buildCaptureFilter({ dstIp: B })).toBe(`ip and dst host ${B}`);
    expect(buildCaptureFilter({ packet: { protocol: 17 } })).toBe('ip proto 17');
  });

  it('swaps addresses and ports for DestinationToSource and ORs both for Both', () => {
    const packet = { protocol: 'UDP', transportHeader: { udp: { dstPort: 53 } } };
    expect(buildCaptureFilter({ srcIp: A, dstIp: B, packet, direction: 'DestinationToSource' })).toBe(
      `ip proto 17 and src host ${B} and dst host ${A} and src port 53`,
    );
    expect(buildCaptureFilter({ srcIp: A, dstIp: B, packet, direction: 'Both' })).toBe(
      `ip proto 17 and ((src host ${A} and dst host ${B} and dst port 53) or (src host ${B} and dst host ${A} and src port 53))`,
    );
    // Nothing depends on the direction: no OR.
    expect(buildCaptureFilter({ packet: { protocol: 'ICMP' }, direction: 'Both' })).toBe('ip proto 1');
  });

  it('ORs TCP flag matchers (mask defaults to the value) and ICMP messages', () => {
    expect(
      buildCaptureFilter({
        packet: {
          protocol: 'TCP',
          transportHeader: { tcp: { flags: [{ value: 0x2 }, { value: 0x10, mask: 0x12 }] } },
        },
      }),
    ).toBe('ip proto 6 and ((tcp[13] & 0x2 == 0x2) or (tcp[13] & 0x12 == 0x10))');
    expect(
      buildCaptureFilter({
        packet: {
          protocol: 'icmp',
          transportHeader: { icmp: { messages: [{ type: 'icmp-unreach', code: 1 }, { type: 0 }] } },
        },
      }),
    ).toBe('ip proto 1 and ((icmp[0] == 3 and icmp[1] == 1) or (icmp[0] == 0))');
    expect(
      buildCaptureFilter({
        srcIp: 'fd00::1',
        packet: {
          ipFamily: 'IPv6',
          protocol: 'ICMPv6',
          transportHeader: { icmpv6: { messages: [{ type: 'icmpv6-echo' }] } },
        },
      }),
    ).toBe('ip6 proto 58 and src host fd00::1 and ip6[40] == 128');
  });

  it('refuses what Antrea refuses, with its reasons', () => {
    const refused = (input: CaptureFilterInput) => {
      try {
        buildCaptureFilter(input);
      } catch (err) {
        expect(AgentError.is(err) && err.code).toBe('AGENT_PACKETCAPTURE_INVALID');
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ packet: { protocol: 'SCTPX' } })).toMatch(
      /^invalid protocol string "SCTPX", supported values are: TCP, UDP, ICMP, ICMPV6/,
    );
    expect(
      refused({ packet: { protocol: 'ICMP', transportHeader: { icmp: { messages: [{ type: 'ping' }] } } } }),
    ).toMatch(/^invalid ICMP type string: "ping"; supported values are: icmp-echo/);
    expect(refused({ srcIp: 'fd00::1' })).toBe('address fd00::1 is not an IPv4 address (packet.ipFamily)');
  });
});

// Real frames through real tcpdump: the expressions compile and select exactly the packets meant.
const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'ats-pcfilter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ip4 = (s: string) => Buffer.from(s.split('.').map(Number));
function frame(src: string, dst: string, proto: number, l4: Buffer): Buffer {
  const eth = Buffer.alloc(14);
  eth.writeUInt16BE(0x0800, 12);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + l4.length, 2);
  ip[8] = 64;
  ip[9] = proto;
  ip4(src).copy(ip, 12);
  ip4(dst).copy(ip, 16);
  return Buffer.concat([eth, ip, l4]);
}
function tcp(sport: number, dport: number, flags: number): Buffer {
  const h = Buffer.alloc(20);
  h.writeUInt16BE(sport, 0);
  h.writeUInt16BE(dport, 2);
  h[12] = 0x50;
  h[13] = flags;
  return h;
}
const udp = (sport: number, dport: number) => {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(sport, 0);
  h.writeUInt16BE(dport, 2);
  h.writeUInt16BE(8, 4);
  return h;
};
const icmp = (type: number, code: number) => Buffer.from([type, code, 0, 0, 0, 0, 0, 0]);

/** A classic pcap file of the frames, as tcpdump would write it. */
function pcapFile(frames: Buffer[]): string {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt16LE(2, 4);
  head.writeUInt16LE(4, 6);
  head.writeUInt32LE(65536, 16);
  head.writeUInt32LE(1, 20);
  const records = frames.map((f, i) => {
    const r = Buffer.alloc(16);
    r.writeUInt32LE(1_700_000_000 + i, 0);
    r.writeUInt32LE(i, 4);
    r.writeUInt32LE(f.length, 8);
    r.writeUInt32LE(f.length, 12);
    return Buffer.concat([r, f]);
  });
  const path = join(dir, 'frames.pcap');
  writeFileSync(path, Buffer.concat([head, ...records]));
  return path;
}

const SYN = 0x02;
const ACK = 0x10;
const frames = [
  frame(A, B, 6, tcp(40000, 8080, SYN)), // 0 SYN A -> B
  frame(B, A, 6, tcp(8080, 40000, SYN | ACK)), // 1 SYN-ACK B -> A
  frame(A, B, 6, tcp(40000, 8080, ACK)), // 2 ACK A -> B
  frame(A, '10.244.9.9', 6, tcp(40001, 8080, SYN)), // 3 SYN A -> elsewhere
  frame(A, B, 17, udp(40000, 8080)), // 4 UDP A -> B, same ports
  frame(B, A, 1, icmp(3, 1)), // 5 ICMP host unreachable B -> A
  frame(A, B, 1, icmp(8, 0)), // 6 ICMP echo A -> B
];

/** Indexes of the frames tcpdump keeps with the filter. */
async function selected(input: CaptureFilterInput): Promise<number[]> {
  const path = pcapFile(frames);
  const { stdout } = await exec('tcpdump', ['-r', path, '-w', '-', buildCaptureFilter(input)], {
    encoding: 'buffer',
  });
  const reader = new PcapStreamReader();
  // Each kept frame is recognized by its capture time, which pcapFile made its index.
  return reader.push(stdout).map((p) => Number(p.timestampNs / 1_000_000_000n) - 1_700_000_000);
}

describe('buildCaptureFilter with tcpdump', () => {
  const tcpPorts = { protocol: 'TCP', transportHeader: { tcp: { srcPort: 40000, dstPort: 8080 } } };
  it('SourceToDestination, DestinationToSource and Both select the flow’s packets of that direction', async () => {
    expect(await selected({ srcIp: A, dstIp: B, packet: tcpPorts })).toEqual([0, 2]);
    expect(
      await selected({ srcIp: A, dstIp: B, packet: tcpPorts, direction: 'DestinationToSource' }),
    ).toEqual([1]);
    expect(await selected({ srcIp: A, dstIp: B, packet: tcpPorts, direction: 'Both' })).toEqual([0, 1, 2]);
    // No protocol: the UDP datagram on the same ports counts too.
    expect(
      await selected({ srcIp: A, dstIp: B, packet: { transportHeader: { udp: { dstPort: 8080 } } } }),
    ).toEqual([0, 2, 4]);
  });

  it('TCP flags and ICMP messages', async () => {
    const syn = { protocol: 'TCP', transportHeader: { tcp: { flags: [{ value: SYN }] } } };
    expect(await selected({ srcIp: A, packet: syn })).toEqual([0, 3]);
    // SYN set and ACK clear: not the SYN-ACK.
    const synOnly = {
      protocol: 'TCP',
      transportHeader: { tcp: { flags: [{ value: SYN, mask: SYN | ACK }] } },
    };
    expect(await selected({ packet: synOnly, direction: 'Both', srcIp: A, dstIp: B })).toEqual([0]);
    const unreach = {
      protocol: 'ICMP',
      transportHeader: { icmp: { messages: [{ type: 'icmp-unreach', code: 1 }] } },
    };
    expect(await selected({ packet: unreach, srcIp: A, dstIp: B, direction: 'Both' })).toEqual([5]);
    expect(await selected({ packet: { protocol: 'icmp' }, dstIp: B })).toEqual([6]);
  });
});
