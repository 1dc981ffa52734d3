import { describe, expect, it } from 'vitest';
import { diffGroupMembers, groupMemberKey } from './group-member.js';
import { formatIP, ipNetContains, parseCIDR, parseIP, parseIPGo } from './ip.js';

describe('parseIP', () => {
  it('parses IPv4 and IPv6 into raw bytes', () => {
    expect([...parseIP('10.0.1.2')!]).toEqual([10, 0, 1, 2]);
    expect(parseIP('::')!.length).toBe(16);
    expect(formatIP(parseIP('fd00::1')!)).toBe('fd00::1');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!)).toBe('1.2.3.4');
  });
  it('rejects malformed addresses', () => {
    expect(parseIP('10.0.0')).toBeUndefined();
    expect(parseIP('10.0.0.256')).toBeUndefined();
    expect(parseIP('1::2::3')).toBeUndefined();
    expect(parseIP('zz::1')).toBeUndefined();
  });
});

describe('formatIP', () => {
  const f = (s: string) => formatIP(parseIP(s)!);
  it('prints IPv6 like Go net.IP.String (RFC 5952)', () => {
    expect(f('::')).toBe('::');
    expect(f('::1')).toBe('::1');
    expect(f('fd00:0:0:0:0:0:0:5')).toBe('fd00::5');
    expect(f('fd00::')).toBe('fd00::');
    expect(f('2001:0DB8:0000:0000:0000:0000:0000:ABCD')).toBe('2001:db8::abcd');
    // The longest run of zero groups; the first one on ties; never a single group.
    expect(f('1:0:0:2:0:0:0:3')).toBe('1:0:0:2::3');
    expect(f('1:0:0:2:0:0:3:4')).toBe('1::2:0:0:3:4');
    expect(f('fe80:0:0:0:1:0:0:2')).toBe('fe80::1:0:0:2');
    expect(f('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(f('1:0:2:0:3:0:4:0')).toBe('1:0:2:0:3:0:4:0');
    expect(f('0:0:1:0:0:0:0:0')).toBe('0:0:1::');
  });
  it('prints IPv4 and IPv4-mapped IPv6 as a dotted quad, IPv4-compatible IPv6 as hex', () => {
    expect(f('10.1.2.3')).toBe('10.1.2.3');
    expect(f('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(f('::ffff:a01:203')).toBe('10.1.2.3');
    expect(f('::1.2.3.4')).toBe('::102:304');
    expect(f('::fffe:1.2.3.4')).toBe('::fffe:102:304');
  });
  it('prints other lengths like Go', () => {
    expect(formatIP(new Uint8Array())).toBe('<nil>');
    expect(formatIP(new Uint8Array([1, 2, 0xab]))).toBe('?0102ab');
  });
  it('round-trips through parseIP', () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 2000; n++) {
      const ip = new Uint8Array(16);
      // Mostly zero groups, so that runs of every length occur.
      for (let g = 0; g < 8; g++)
        if (rand() % 3 === 0) {
          ip[g * 2] = rand() & 0xff;
          ip[g * 2 + 1] = rand() & 0xff;
        }
      const text = formatIP(ip);
      expect(text).not.toMatch(/:::|::.*::/);
      expect(parseIPGo(text)).toEqual(ip);
    }
  });
});

describe('parseCIDR', () => {
  it('keeps the address as written and checks the prefix range', () => {
    expect(parseCIDR('10.0.0.1/8')).toEqual({ ip: new Uint8Array([10, 0, 0, 1]), prefixLength: 8 });
    expect(parseCIDR('10.0.0.0/33')).toBeUndefined();
    expect(parseCIDR('10.0.0.0')).toBeUndefined();
    expect(parseCIDR('::/0')!.prefixLength).toBe(0);
  });
  it('tells containment', () => {
    expect(ipNetContains(parseCIDR('10.0.0.0/8')!, parseCIDR('10.1.0.0/16')!)).toBe(true);
    expect(ipNetContains(parseCIDR('10.0.0.0/8')!, parseCIDR('11.0.0.0/16')!)).toBe(false);
    expect(ipNetContains(parseCIDR('10.0.0.0/16')!, parseCIDR('10.0.0.0/8')!)).toBe(false);
    expect(ipNetContains(parseCIDR('10.0.0.0/12')!, parseCIDR('10.16.0.0/16')!)).toBe(false);
  });
});

describe('group members', () => {
  const a = { pod: { namespace: 'x', name: 'a' }, ips: [parseIP('10.0.0.1')!] };
  const b = { pod: { namespace: 'x', name: 'b' }, ips: [parseIP('10.0.0.2')!] };
  it('keys members by reference and IPs', () => {
    expect(groupMemberKey(a)).toBe('Pod:x/a|10.0.0.1');
    expect(groupMemberKey({ node: { name: 'n1' } })).toBe('Node:n1');
  });
  it('diffs member lists', () => {
    const a2 = { pod: { namespace: 'x', name: 'a' }, ips: [parseIP('10.0.0.9')!] };
    const d = diffGroupMembers([a, b], [b, a2]);
    expect(d.added).toEqual([a2]);
    expect(d.removed).toEqual([a]);
  });
});

describe('Go byte forms', () => {
  it('maps IPv4 to the 16-byte form like net.ParseIP and keeps the IPv4 prefix', () => {
    const n = parseCIDR('10.0.0.0/8', { goBytes: true })!;
    expect(n.ip.length).toBe(16);
    expect(n.prefixLength).toBe(8);
    expect(formatIP(n.ip)).toBe('10.0.0.0');
    expect(ipNetContains(n, parseCIDR('10.2.0.0/16', { goBytes: true })!)).toBe(true);
  });
});

describe('parseIP edge cases', () => {
  it('refuses empty octets, long octets and trailing dots', () => {
    for (const bad of ['', '1..2.3', '1.2.3.4.', '.1.2.3', '1.2.3.1234', '1.2.3.4.5', '1.2.3.a'])
      expect(parseIP(bad)).toBeUndefined();
    expect([...parseIP('255.0.10.1')!]).toEqual([255, 0, 10, 1]);
  });
});
