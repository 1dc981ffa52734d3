import { describe, expect, it } from 'vitest';
import { ipEntryToCidrs } from './ip.js';

describe('ipEntryToCidrs', () => {
  it('host addresses become host CIDRs', () => {
    expect(ipEntryToCidrs('10.1.2.3')).toEqual(['10.1.2.3/32']);
    expect(ipEntryToCidrs('fd00::1')).toEqual(['fd00::1/128']);
  });
  it('CIDRs keep their prefix with host bits cleared', () => {
    expect(ipEntryToCidrs('10.0.0.0/8')).toEqual(['10.0.0.0/8']);
    expect(ipEntryToCidrs('192.168.10.7/24')).toEqual(['192.168.10.0/24']);
    expect(ipEntryToCidrs('fd00:0:0:1::5/64')).toEqual(['fd00:0:0:1::/64']);
  });
  it('ranges become the exact covering CIDR list', () => {
    expect(ipEntryToCidrs('10.0.0.0-10.0.0.255')).toEqual(['10.0.0.0/24']);
    expect(ipEntryToCidrs('10.0.0.1-10.0.0.6')).toEqual([
      '10.0.0.1/32',
      '10.0.0.2/31',
      '10.0.0.4/31',
      '10.0.0.6/32',
    ]);
    expect(ipEntryToCidrs('fd00::-fd00::3')).toEqual(['fd00::/126']);
  });
  it('rejects what is not an address', () => {
    for (const bad of ['web', '10.0.0.1/33', '10.0.0.5-10.0.0.1', '10.0.0.1-fd00::1', '1.2.3.4/8/9']) {
      expect(ipEntryToCidrs(bad)).toBeUndefined();
    }
  });
});
