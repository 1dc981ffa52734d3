import { describe, expect, it } from 'vitest';
import { readIpv6, writeIpv6 } from './ip-address.js';

const roundTrip = (text: string): string => {
  const b = Buffer.alloc(16);
  writeIpv6(b, 0, text);
  return readIpv6(b, 0);
};

describe('IPv6 text', () => {
  it('writes and reads RFC 5952 forms', () => {
    const b = Buffer.alloc(16);
    writeIpv6(b, 0, '2001:db8::1');
    expect(b.toString('hex')).toBe('20010db8000000000000000000000001');
    expect(roundTrip('::')).toBe('::');
    expect(roundTrip('::1')).toBe('::1');
    expect(roundTrip('fe80:0:0:0:1:0:0:0')).toBe('fe80::1:0:0:0');
    expect(roundTrip('1:0:2:0:3:0:4:0')).toBe('1:0:2:0:3:0:4:0');
  });

  it('refuses what is not an address', () => {
    expect(() => roundTrip('1::2::3')).toThrow(/IPv6/);
    expect(() => roundTrip('1:2:3')).toThrow(/IPv6/);
    expect(() => roundTrip('12345::')).toThrow(/IPv6/);
  });
});
