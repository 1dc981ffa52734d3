import { describe, expect, it } from 'vitest';
import { decodeIp, sourceRefString } from './controlplane.js';

describe('decodeIp', () => {
  it('reads Go base64 bytes, byte arrays and JSON-stringified Uint8Arrays', () => {
    expect(decodeIp('CgoBAw==')).toBe('10.10.1.3');
    expect(decodeIp([10, 0, 0, 1])).toBe('10.0.0.1');
    expect(decodeIp(JSON.parse(JSON.stringify(new Uint8Array([192, 168, 1, 2]))))).toBe('192.168.1.2');
    expect(decodeIp(Buffer.from('fd00::5', 'utf8').toString('base64'))).toBe('ZmQwMDo6NQ==');
    const v6 = new Uint8Array(16);
    v6[0] = 0xfd;
    v6[15] = 5;
    expect(decodeIp(Buffer.from(v6).toString('base64'))).toBe('fd00::5');
  });
  it('prints IPv6 like Go', () => {
    const ip = (words: number[]) =>
      decodeIp(Buffer.from(words.flatMap((w) => [w >> 8, w & 0xff])).toString('base64'));
    expect(ip([0, 0, 0, 0, 0, 0, 0, 1])).toBe('::1');
    expect(ip([0xfe80, 0, 0, 0, 1, 0, 0, 2])).toBe('fe80::1:0:0:2');
    expect(ip([1, 0, 2, 0, 3, 0, 4, 0])).toBe('1:0:2:0:3:0:4:0');
    expect(ip([0, 0, 0, 0, 0, 0, 0, 0])).toBe('::');
    expect(ip([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1])).toBe('10.0.0.1');
  });
});

describe('sourceRefString (NetworkPolicyReference.ToString)', () => {
  it('leaves the Namespace out for cluster-scoped types only', () => {
    expect(sourceRefString({ type: 'AntreaClusterNetworkPolicy', name: 'a' })).toBe(
      'AntreaClusterNetworkPolicy:a',
    );
    expect(sourceRefString({ type: 'AdminNetworkPolicy', name: 'a' })).toBe('AdminNetworkPolicy:/a');
    expect(sourceRefString({ type: 'K8sNetworkPolicy', namespace: 'ns', name: 'a' })).toBe(
      'K8sNetworkPolicy:ns/a',
    );
  });
});
