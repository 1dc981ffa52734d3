// AntreaProxy's zone hints on real userspace ovs-vswitchd: the Proxier writes select groups whose
// buckets are the endpoints hinted for the Node's zone, and real TCP connections from a Pod land
// only there; another zone, or hints gone, and the same group holds the others.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BedPodName, type ProxierBed, podIp, startProxierBed } from '../proxy/proxier-bed.js';

const WEB = {
  metadata: { namespace: 'default', name: 'web' },
  spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
};
/** web's slice: b in zone-a, c in zone-b (hints as kube-controller-manager writes them), or no hints. */
const webSlice = (hinted: boolean): V1EndpointSlice => ({
  metadata: { namespace: 'default', name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: (['b', 'c'] as const).map((name) => ({
    addresses: [podIp(name)],
    conditions: { ready: true },
    ...(hinted && { hints: { forZones: [{ name: name === 'b' ? 'zone-a' : 'zone-b' }] } }),
  })),
});

describe('AntreaProxy zone hints on real ovs-vswitchd', () => {
  let t: ProxierBed;
  /** Who answers 16 TCP connections from Pod a to web (each from a new source port). */
  const answers = async (): Promise<Set<string>> => {
    const got = new Set<string>();
    for (let i = 0; i < 16; i++) got.add(await t.tcp('a', '10.96.0.10', 80));
    return got;
  };
  const endpointsOf = (...names: BedPodName[]) => [names.map(podIp)];

  beforeAll(async () => {
    t = await startProxierBed({ nodeZone: 'zone-a', services: [WEB], slices: [webSlice(true)] });
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
  });

  it('the Node in zone-a: the group holds the zone-a endpoint only, and every connection lands there', async () => {
    expect(await t.groupEndpoints()).toEqual(endpointsOf('b'));
    expect(await answers()).toEqual(new Set(['b']));
  }, 120_000);

  it('the Node’s zone label changes: the same group now holds the zone-b endpoint', async () => {
    t.proxier.setNodeZone('zone-b');
    await t.proxier.idle();
    expect(await t.groupEndpoints()).toEqual(endpointsOf('c'));
    expect(await answers()).toEqual(new Set(['c']));
  }, 120_000);

  it('a zone no endpoint is hinted for, or hints removed: every endpoint', async () => {
    t.proxier.setNodeZone('zone-c');
    await t.proxier.idle();
    expect(await t.groupEndpoints()).toEqual(endpointsOf('b', 'c'));
    t.proxier.setNodeZone('zone-a');
    t.events.upsertSlice(webSlice(false));
    await t.proxier.idle();
    expect(await t.groupEndpoints()).toEqual(endpointsOf('b', 'c'));
    expect(await answers()).toEqual(new Set(['b', 'c']));
  }, 120_000);
});
