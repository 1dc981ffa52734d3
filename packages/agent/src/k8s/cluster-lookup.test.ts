import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podIPv4, unlessNotFound } from './cluster-lookup.js';

describe('cluster lookup helpers', () => {
  it("a Pod's IPv4 address: from podIPs, else podIP, never an IPv6 one", () => {
    expect(podIPv4({ status: { podIPs: [{ ip: 'fd00::5' }, { ip: '10.10.1.5' }], podIP: 'fd00::5' } })).toBe(
      '10.10.1.5',
    );
    expect(podIPv4({ status: { podIP: '10.10.1.6' } })).toBe('10.10.1.6');
    expect(podIPv4({ status: { podIPs: [{ ip: 'fd00::5' }], podIP: 'fd00::5' } })).toBeUndefined();
    expect(podIPv4({ status: {} })).toBeUndefined();
    expect(podIPv4(undefined)).toBeUndefined();
  });

  it('a 404 from kube-apiserver reads as undefined; other failures are thrown', async () => {
    expect(await unlessNotFound(async () => 'pod')).toBe('pod');
    expect(
      await unlessNotFound(async () => {
        throw new ApiException(404, 'not found', '', {});
      }),
    ).toBeUndefined();
    const forbidden = new ApiException(403, 'forbidden', '', {});
    await expect(
      unlessNotFound(async () => {
        throw forbidden;
      }),
    ).rejects.toBe(forbidden);
  });
});
