// CleanupStaleUDPSvcConntrack on real userspace ovs-vswitchd: a UDP client that keeps its socket
// keeps its conntrack entry, and with it the DNAT to the endpoint it got first, after that
// endpoint left the Service; the proxier's flush through ovs-appctl sends it to the others.
import { ovsStaleUdpConntrack, type StaleUdpFlow } from '@antrea-ts/agent';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProxierBed, podIp, startProxierBed } from './proxier-bed.js';

const DNS = {
  metadata: { namespace: 'default', name: 'dns' },
  spec: { type: 'ClusterIP', clusterIP: '10.96.0.53', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] },
};
const dnsSlice = (names: readonly ('b' | 'c')[]): V1EndpointSlice => ({
  metadata: { namespace: 'default', name: 'dns-1', labels: { 'kubernetes.io/service-name': 'dns' } },
  addressType: 'IPv4',
  ports: [{ name: 'dns', port: 5353, protocol: 'UDP' }],
  endpoints: names.map((name) => ({ addresses: [podIp(name)], conditions: { ready: true } })),
});

describe('stale UDP Service conntrack on real ovs-vswitchd', () => {
  let t: ProxierBed;
  /** The flush goes to the real ovs-appctl only while `flushing`, so one bed shows both behaviours. */
  let flushing = false;
  const flushed: StaleUdpFlow[] = [];

  beforeAll(async () => {
    t = await startProxierBed({
      services: [DNS],
      slices: [dnsSlice(['b', 'c'])],
      staleUdpConntrack: {
        flush: async (flows) => {
          if (!flushing) return;
          flushed.push(...flows);
          await ovsStaleUdpConntrack((args) => t.bed.ovs.appctl(args)).flush(flows);
        },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
  });

  /**
   * From one source port: the first endpoint, then (after it is removed from the Service) who answers
   * the same 5-tuple again; the Service gets both endpoints back at the end.
   */
  const afterRemoval = async (sourcePort: number): Promise<[string, string]> => {
    const first = await t.udp('a', '10.96.0.53', 53, sourcePort);
    expect(['b', 'c']).toContain(first);
    t.events.upsertSlice(dnsSlice(first === 'b' ? ['c'] : ['b']));
    await t.proxier.idle();
    const second = await t.udp('a', '10.96.0.53', 53, sourcePort);
    t.events.upsertSlice(dnsSlice(['b', 'c']));
    await t.proxier.idle();
    return [first, second];
  };

  it('without the flush: the removed endpoint keeps answering the same client socket', async () => {
    const [first, second] = await afterRemoval(46000);
    expect(second).toBe(first);
  }, 120_000);

  it('with the flush: the next datagram is a new connection, load-balanced to the remaining endpoint', async () => {
    flushing = true;
    const [first, second] = await afterRemoval(46001);
    expect(second).toBe(first === 'b' ? 'c' : 'b');
    expect(flushed).toEqual([
      { vip: '10.96.0.53', port: 53, endpoint: { ip: podIp(first as 'b'), port: 5353 } },
    ]);
    // The new connection's entry is there; the one DNATed to the removed endpoint is gone.
    const dump = await t.bed.ovs.appctl(['dpctl/dump-conntrack', 'zone=65520']);
    const reply = (name: string) => `reply=(src=${podIp(name as 'b')},dst=10.10.1.5,sport=5353,dport=46001)`;
    expect(dump).toContain(reply(second));
    expect(dump).not.toContain(reply(first));
  }, 120_000);
});
