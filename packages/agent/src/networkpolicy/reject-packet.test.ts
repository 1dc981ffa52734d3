import { describe, expect, it } from 'vitest';
import { checksum, rejectReply } from './reject-packet.js';

const MAC_A = Buffer.from('0a0000000001', 'hex');
const MAC_B = Buffer.from('0a0000000002', 'hex');
const IP_A = Buffer.from([10, 0, 0, 1]);
const IP_B = Buffer.from([10, 0, 0, 2]);

function frame(proto: number, l4: Buffer): Buffer {
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + l4.length, 2);
  ip[8] = 64;
  ip[9] = proto;
  IP_A.copy(ip, 12);
  IP_B.copy(ip, 16);
  ip.writeUInt16BE(checksum(ip), 10);
  return Buffer.concat([MAC_B, MAC_A, Buffer.from([0x08, 0x00]), ip, l4]);
}

describe('reject replies', () => {
  it('answers a TCP SYN with RST+ACK from the destination, checksums valid', () => {
    const syn = Buffer.alloc(20);
    syn.writeUInt16BE(40000, 0);
    syn.writeUInt16BE(80, 2);
    syn.writeUInt32BE(1000, 4);
    syn[12] = 5 << 4;
    syn[13] = 0x02;
    const r = rejectReply(frame(6, syn))!;
    expect(r.subarray(0, 6)).toEqual(MAC_A);
    expect(r.subarray(6, 12)).toEqual(MAC_B);
    const ip = r.subarray(14, 34);
    expect(checksum(ip)).toBe(0);
    expect([...ip.subarray(12, 16)]).toEqual([...IP_B]);
    expect([...ip.subarray(16, 20)]).toEqual([...IP_A]);
    const tcp = r.subarray(34);
    expect(tcp.readUInt16BE(0)).toBe(80);
    expect(tcp.readUInt16BE(2)).toBe(40000);
    expect(tcp.readUInt32BE(8)).toBe(1001);
    expect(tcp[13]).toBe(0x14);
    const pseudo = Buffer.concat([IP_B, IP_A, Buffer.from([0, 6, 0, tcp.length])]);
    expect(checksum(Buffer.concat([pseudo, tcp]))).toBe(0);
    // A RST is never answered.
    const rst = Buffer.from(syn);
    rst[13] = 0x04;
    expect(rejectReply(frame(6, rst))).toBeUndefined();
  });

  it('answers UDP with ICMP unreachable (admin prohibited) quoting the original header', () => {
    const udp = Buffer.from([0x9c, 0x40, 0, 81, 0, 12, 0, 0, 1, 2, 3, 4]);
    const r = rejectReply(frame(17, udp))!;
    const icmp = r.subarray(34);
    expect([icmp[0], icmp[1]]).toEqual([3, 10]);
    expect(checksum(icmp)).toBe(0);
    expect(icmp.length).toBe(8 + 20 + 8);
    expect(icmp.subarray(8 + 20, 8 + 24)).toEqual(udp.subarray(0, 4));
  });
});
