import { describe, expect, it } from 'vitest';
import { diffGroupMembers, groupMemberKey } from './group-member.js';
import { formatIP, ipNetContains, parseCIDR, parseIP } from './ip.js';

describe('parseIP', () => {
  it('parses IPv4 and IPv6 into raw bytes', () => {
    expect([...parseIP('10.0.1.2')!]).toEqual([10, 0, 1, 2]);
    expect(parseIP('::')!.length).toBe(16);
    expect(formatIP(parseIP('fd00::1')!)).toBe('fd00:0:0:0:0:0:0:1');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!)).toBe('1.2.3.4');
  });
  it('rejects malformed addresses', () => {
    expect(parseIP('10.0.0')).toBeUndefined();
    expect(parseIP('10.0.0.256')).toBeUndefined();
    expect(parseIP('1::2::3')).toBeUndefined();
    expect(parseIP('zz::1')).toBeUndefined();
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
