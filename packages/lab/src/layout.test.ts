import { describe, expect, it } from 'vitest';
import { gatewayIp, podCidrFor } from './lab.js';
import { LabLayout } from './layout.js';

describe('LabLayout', () => {
  it('names instance 0 for the developer and instance k apart from it', () => {
    const dev = new LabLayout('/s', 0);
    const test = new LabLayout('/t', 7);
    expect([dev.nodeName(1), dev.uplinkName(1), dev.underlayBridge, dev.hostIp]).toEqual([
      'lab-node-1',
      'lbu1',
      'lb-underlay',
      '198.19.0.1',
    ]);
    expect([test.nodeName(1), test.uplinkName(1), test.underlayBridge, test.hostIp]).toEqual([
      'lab7-node-1',
      'lb7u1',
      'lb7-underlay',
      '198.19.7.1',
    ]);
    // Neither claims the other's links, nor the harness's "ats" ones.
    expect(dev.isLabLink('lb7u1')).toBe(false);
    expect(test.isLabLink('lbu1')).toBe(false);
    expect(dev.isLabLink('lbu12')).toBe(true);
    expect(dev.isLabLink('atsu1')).toBe(false);
  });

  it('keeps every link name within the kernel limit of 15 characters', () => {
    const l = new LabLayout('/s', 99);
    for (const name of [l.underlayBridge, l.uplinkName(16), l.tempLinkName(16)]) {
      expect(name.length).toBeLessThanOrEqual(15);
    }
  });

  it('rejects an instance outside 0-99', () => {
    expect(() => new LabLayout('/s', 100)).toThrow(RangeError);
  });
});

describe('CIDR helpers', () => {
  it('puts the gateway on the first address of the podCIDR', () => {
    expect(gatewayIp('10.244.3.0/24')).toBe('10.244.3.1');
  });
  it('gives Node i the /24 number i of the cluster CIDR when the lab allocates', () => {
    expect(podCidrFor('10.244.0.0/16', 2)).toBe('10.244.2.0/24');
  });
});
