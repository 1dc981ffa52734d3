import { describe, expect, it } from 'vitest';
import { clusterEndpoints, type EndpointCandidate, nodeLocalEndpoints, prefersSameZone } from './topology.js';

const ep = (ip: string, zoneHints: string[], more: Partial<EndpointCandidate> = {}): EndpointCandidate => ({
  ip,
  port: 80,
  ready: true,
  servingTerminating: false,
  zoneHints,
  ...more,
});
const ips = (list: readonly EndpointCandidate[]) => list.map((c) => c.ip);

describe('zone hints (kube-proxy CategorizeEndpoints rules)', () => {
  const hinted = [ep('10.0.0.1', ['a']), ep('10.0.0.2', ['b']), ep('10.0.0.3', ['a', 'b'])];

  it('every ready endpoint hinted and one for this zone: only the zone’s endpoints', () => {
    expect(prefersSameZone(hinted, 'a')).toBe(true);
    expect(ips(clusterEndpoints(hinted, 'a'))).toEqual(['10.0.0.1', '10.0.0.3']);
    expect(ips(clusterEndpoints(hinted, 'b'))).toEqual(['10.0.0.2', '10.0.0.3']);
  });

  it('one ready endpoint without hints: every endpoint', () => {
    const oneMissing = [...hinted, ep('10.0.0.4', [])];
    expect(prefersSameZone(oneMissing, 'a')).toBe(false);
    expect(ips(clusterEndpoints(oneMissing, 'a'))).toHaveLength(4);
  });

  it('an endpoint that is not ready does not need hints', () => {
    const notReady = [...hinted, ep('10.0.0.4', [], { ready: false })];
    expect(ips(clusterEndpoints(notReady, 'a'))).toEqual(['10.0.0.1', '10.0.0.3']);
  });

  it('no endpoint for this zone: every endpoint', () => {
    expect(prefersSameZone(hinted, 'c')).toBe(false);
    expect(ips(clusterEndpoints(hinted, 'c'))).toHaveLength(3);
  });

  it('the Node without a zone label: every endpoint', () => {
    expect(ips(clusterEndpoints(hinted, undefined))).toHaveLength(3);
    expect(ips(clusterEndpoints(hinted, ''))).toHaveLength(3);
  });

  it('the zone’s only endpoint not ready: hints ignored (it would leave the zone empty)', () => {
    const zoneDown = [ep('10.0.0.1', ['a'], { ready: false }), ep('10.0.0.2', ['b'])];
    expect(ips(clusterEndpoints(zoneDown, 'a'))).toEqual(['10.0.0.2']);
  });

  it('nothing ready: serving-terminating endpoints of every zone', () => {
    const draining = [
      ep('10.0.0.1', ['a'], { ready: false, servingTerminating: true }),
      ep('10.0.0.2', ['b'], { ready: false, servingTerminating: true }),
      ep('10.0.0.3', ['a'], { ready: false }),
    ];
    expect(ips(clusterEndpoints(draining, 'a'))).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('Local policy: this Node’s ready endpoints whatever their hints, else its serving-terminating ones', () => {
    const list = [
      ep('10.0.0.1', ['b'], { nodeName: 'n1' }),
      ep('10.0.0.2', ['a'], { nodeName: 'n2' }),
      ep('10.0.0.3', ['b'], { nodeName: 'n1', ready: false, servingTerminating: true }),
    ];
    expect(ips(nodeLocalEndpoints(list, 'n1'))).toEqual(['10.0.0.1']);
    expect(ips(nodeLocalEndpoints(list.slice(1), 'n1'))).toEqual(['10.0.0.3']);
    expect(nodeLocalEndpoints(list, 'n3')).toEqual([]);
  });
});
