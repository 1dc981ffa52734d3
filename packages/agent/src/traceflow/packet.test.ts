import { describe, expect, it } from 'vitest';
import { checksum } from '../networkpolicy/reject-packet.js';
import { capturedPacket, craftTracePacket, IPPROTO, parseTracePacket, tracePacketSpec } from './packet.js';

const ends = {
  srcMac: '02:00:00:00:00:05',
  dstMac: '02:00:00:00:00:06',
  srcIp: '10.10.1.5',
  dstIp: '10.10.2.6',
};
const fixed = () => 0.5;

/** The TCP/UDP checksum over the pseudo header verifies to zero. */
function l4ChecksumOk(frame: Buffer): boolean {
  const ip = frame.subarray(14);
  const seg = ip.subarray(20);
  const pseudo = Buffer.alloc(12);
  ip.copy(pseudo, 0, 12, 20);
  pseudo[9] = ip[9]!;
  pseudo.writeUInt16BE(seg.length, 10);
  return checksum(Buffer.concat([pseudo, seg])) === 0;
}

describe('Traceflow packets', () => {
  it('an ICMP echo request by default, with the tag in DSCP and valid checksums', () => {
    const spec = tracePacketSpec(11, undefined, ends, fixed);
    expect(spec).toMatchObject({ protocol: IPPROTO.ICMP, ttl: 64, icmpSequence: 0 });
    const frame = craftTracePacket(spec);
    expect(frame.length).toBe(14 + 20 + 8);
    expect(frame.subarray(0, 6).toString('hex')).toBe('020000000006');
    expect(frame.readUInt16BE(12)).toBe(0x0800);
    expect(frame[15]).toBe(11 << 2);
    expect(checksum(frame.subarray(14, 34))).toBe(0);
    expect(checksum(frame.subarray(34))).toBe(0);
    expect(parseTracePacket(frame)).toEqual({
      tag: 11,
      srcIp: '10.10.1.5',
      dstIp: '10.10.2.6',
      protocol: 1,
      ttl: 64,
      length: 28,
      icmpId: spec.icmpId,
      icmpSequence: 0,
    });
  });

  it('TCP SYN (or the given flags) and UDP with ports, padded to spec.length', () => {
    const tcp = tracePacketSpec(7, { transportHeader: { tcp: { dstPort: 80 } }, length: 100 }, ends, fixed);
    expect(tcp).toMatchObject({ protocol: 6, dstPort: 80, tcpFlags: 2 });
    expect(tcp.srcPort).toBeGreaterThanOrEqual(32768);
    const tframe = craftTracePacket(tcp);
    expect(tframe.length).toBe(14 + 100);
    expect(l4ChecksumOk(tframe)).toBe(true);
    expect(parseTracePacket(tframe)).toMatchObject({
      tag: 7,
      protocol: 6,
      dstPort: 80,
      tcpFlags: 2,
      length: 100,
    });
    const udp = tracePacketSpec(
      59,
      {
        ipHeader: { protocol: 17, ttl: 3, flags: 2 },
        transportHeader: { udp: { srcPort: 5353, dstPort: 53 } },
      },
      ends,
      fixed,
    );
    const uframe = craftTracePacket(udp);
    expect(l4ChecksumOk(uframe)).toBe(true);
    expect(uframe.readUInt16BE(14 + 6) >> 13).toBe(2);
    expect(uframe.readUInt16BE(34 + 4)).toBe(8);
    const parsed = parseTracePacket(uframe)!;
    expect(parsed).toMatchObject({ tag: 59, ttl: 3, srcPort: 5353, dstPort: 53 });
    expect(capturedPacket(parsed)).toEqual({
      srcIP: '10.10.1.5',
      dstIP: '10.10.2.6',
      length: 28,
      ipHeader: { protocol: 17, ttl: 3 },
      transportHeader: { udp: { srcPort: 5353, dstPort: 53 } },
    });
  });

  it('a destination port the spec leaves out comes from the default (a Service port), else 0', () => {
    const servicePort = (protocol: number) => (protocol === 6 ? 80 : undefined);
    expect(tracePacketSpec(7, { transportHeader: { tcp: {} } }, ends, fixed, servicePort).dstPort).toBe(80);
    expect(
      tracePacketSpec(7, { transportHeader: { tcp: { dstPort: 443 } } }, ends, fixed, servicePort).dstPort,
    ).toBe(443);
    expect(tracePacketSpec(7, { transportHeader: { udp: {} } }, ends, fixed, servicePort).dstPort).toBe(0);
  });

  it('different Traceflows get different echo ids, so conntrack never sees one connection', () => {
    let n = 0;
    const random = () => (n++ * 0.37) % 1;
    const a = tracePacketSpec(7, undefined, ends, random);
    const b = tracePacketSpec(7, undefined, ends, random);
    expect(a.icmpId).not.toBe(b.icmpId);
  });

  it('refuses protocols it cannot craft and ignores non-IPv4 frames', () => {
    expect(() => tracePacketSpec(7, { ipHeader: { protocol: 132 } }, ends, fixed)).toThrow(
      expect.objectContaining({ code: 'AGENT_TRACEFLOW_INVALID' }),
    );
    const arp = Buffer.alloc(42);
    arp.writeUInt16BE(0x0806, 12);
    expect(parseTracePacket(arp)).toBeUndefined();
  });
});
