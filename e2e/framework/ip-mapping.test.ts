import { describe, expect, it } from 'vitest';
import { coveringCidr, formatCidr, formatIP, parseCidr, parseIP } from './ip.js';
import { IpMapping } from './ip-mapping.js';

describe('ip helpers', () => {
  it('parses and formats IPv4 and IPv6, clears host bits, finds covering CIDRs', () => {
    expect(formatIP(parseIP('10.244.1.11')!)).toBe('10.244.1.11');
    expect(formatIP(parseIP('fd00:0:0::1')!)).toBe('fd00::1');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!)).toBe('::ffff:102:304');
    expect(parseCidr('10.244.1.11/24') && formatCidr(parseCidr('10.244.1.11/24')!)).toBe('10.244.1.0/24');
    expect(parseCidr('10.0.0.1/33')).toBeUndefined();
    expect(parseCidr('a.b/8')).toBeUndefined();
    expect(formatCidr(coveringCidr([parseIP('10.10.1.10')!, parseIP('10.10.1.13')!]))).toBe('10.10.1.8/29');
    expect(formatCidr(coveringCidr([parseIP('10.10.1.10')!]))).toBe('10.10.1.10/32');
  });
});

// Fixture IPs as in xyz-abc; real IPs as a two-Node cluster hands them out.
const pods = [
  { namespace: 'x', name: 'a', fixtureIPs: ['10.244.0.10'], realIPs: ['10.10.1.10'] },
  { namespace: 'x', name: 'b', fixtureIPs: ['10.244.0.11'], realIPs: ['10.10.2.10'] },
  { namespace: 'y', name: 'a', fixtureIPs: ['10.244.1.10'], realIPs: ['10.10.1.11'] },
  { namespace: 'y', name: 'b', fixtureIPs: ['10.244.1.11'], realIPs: ['10.10.1.12'] },
  {
    namespace: 'z',
    name: 'a',
    fixtureIPs: ['10.244.2.10', 'fd00:244::10'],
    realIPs: ['10.10.2.11', 'fd00:10::2:11'],
  },
];

describe('IpMapping', () => {
  const m = new IpMapping(pods);
  const peer = (cidr: string, except?: string[]) => ({ ipBlock: { cidr, ...(except ? { except } : {}) } });

  // A case file's placeholder, written so that it does not read as a forgotten template literal.
  const ip = (key: string) => `\${ip:${key}}`;

  it('fills ip placeholders with the real primary IP, after rewriting', () => {
    expect(m.prepare(peer(`${ip('y/b')}/32`))).toEqual(peer('10.10.1.12/32'));
    expect(m.prepare({ note: `to ${ip('x/a')} and ${ip('z/a')}` })).toEqual({
      note: 'to 10.10.1.10 and 10.10.2.11',
    });
    expect(() => m.prepare(ip('q/q'))).toThrow(expect.objectContaining({ code: 'E2E_UNKNOWN_POD' }));
  });

  it('rewrites a literal /32 of a fixture Pod to that Pod, in any nesting', () => {
    expect(m.prepare({ spec: { ipBlocks: [{ cidr: '10.244.1.10/32' }] } })).toEqual({
      spec: { ipBlocks: [{ cidr: '10.10.1.11/32' }] },
    });
    expect(m.prepare(peer('fd00:244::10/128'))).toEqual(peer('fd00:10::2:11/128'));
    expect(m.prepare(['10.244.0.11'])).toEqual(['10.10.2.10']);
  });

  it('keeps CIDRs that already select the same Pods (broad blocks, external blocks)', () => {
    for (const c of ['0.0.0.0/0', '0.0.0.0/4', '10.0.0.0/8', '192.168.0.0/16', '::/0'])
      expect(m.prepare(peer(c))).toEqual(peer(c));
  });

  it('rewrites the cidr and the except of one block consistently', () => {
    // 10.244.1.0/24 held y/a and y/b in the fixture; really they sit in 10.10.1.11-12, next to x/a
    // (10.10.1.10): the smallest block for both is 10.10.1.11/32 + .12 -> 10.10.1.8/29 holds x/a.
    expect(() => m.prepare(peer('10.244.1.0/24'))).toThrow(
      /10\.10\.1\.8\/29 around y\/a, y\/b also holds x\/a/,
    );
    const only = new IpMapping(pods.filter((p) => p.name !== 'a' || p.namespace === 'y'));
    expect(only.prepare(peer('10.244.1.0/24', ['10.244.1.11/32']))).toEqual(
      peer('10.10.1.8/29', ['10.10.1.12/32']),
    );
  });

  it('refuses a CIDR that held no fixture Pod but holds real ones', () => {
    expect(() => m.prepare(peer('10.10.0.0/16'))).toThrow(
      expect.objectContaining({
        code: 'E2E_IP_MAPPING',
        message: expect.stringContaining('holds the real IPs of x/a'),
      }),
    );
  });

  it('leaves strings that are not addresses alone', () => {
    const o = {
      metadata: { name: 'p', labels: { 'kubernetes.io/metadata.name': 'x' } },
      port: 80,
      v: [true, null],
    };
    expect(m.prepare(o)).toEqual(o);
  });
});
