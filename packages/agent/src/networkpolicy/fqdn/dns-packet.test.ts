import { describe, expect, it } from 'vitest';
import { DNS_TYPE, encodeDnsMessage } from './dns-message.js';
import { dnsPayloadOf } from './dns-packet.js';

const dns = encodeDnsMessage({
  id: 1,
  response: true,
  rcode: 0,
  questions: [{ name: 'a.example', type: DNS_TYPE.A }],
  answers: [{ name: 'a.example', type: DNS_TYPE.A, ttl: 5, data: '10.0.0.1' }],
});

function frame(proto: 6 | 17, l4: Buffer, fragment = 0): Buffer {
  const eth = Buffer.alloc(14);
  eth.writeUInt16BE(0x0800, 12);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + l4.length, 2);
  ip.writeUInt16BE(fragment, 6);
  ip[9] = proto;
  return Buffer.concat([eth, ip, l4]);
}

const udp = (payload: Buffer) => {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(53, 0);
  h.writeUInt16BE(8 + payload.length, 4);
  return Buffer.concat([h, payload]);
};
const tcp = (payload: Buffer) => {
  const h = Buffer.alloc(20);
  h.writeUInt16BE(53, 0);
  h[12] = 5 << 4;
  return Buffer.concat([h, payload]);
};
const lengthPrefixed = (b: Buffer, length = b.length) => {
  const l = Buffer.alloc(2);
  l.writeUInt16BE(length);
  return Buffer.concat([l, b]);
};

describe('dnsPayloadOf', () => {
  it('finds the message in UDP and in a TCP segment with its length prefix', () => {
    expect(Buffer.from(dnsPayloadOf(frame(17, udp(dns)))!)).toEqual(dns);
    expect(Buffer.from(dnsPayloadOf(frame(6, tcp(lengthPrefixed(dns))))!)).toEqual(dns);
  });

  it('gives up on fragments, partial TCP messages, other protocols and short frames', () => {
    expect(dnsPayloadOf(frame(17, udp(dns), 0x2000))).toBeUndefined(); // more fragments
    expect(dnsPayloadOf(frame(6, tcp(lengthPrefixed(dns, dns.length + 10))))).toBeUndefined();
    expect(dnsPayloadOf(frame(17, udp(dns)).subarray(0, 30))).toBeUndefined();
    const icmp = frame(17, udp(dns));
    icmp[23] = 1;
    expect(dnsPayloadOf(icmp)).toBeUndefined();
    expect(dnsPayloadOf(Buffer.alloc(10))).toBeUndefined();
  });
});
