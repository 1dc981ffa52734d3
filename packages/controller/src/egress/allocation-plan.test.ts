import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import { parseRange, poolRanges, rangesOverlap } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { planAllocations } from './allocation-plan.js';

const pool = (name: string, ipRanges: ExternalIPPool['spec']['ipRanges']): ExternalIPPool => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ExternalIPPool',
  metadata: { name },
  spec: { ipRanges, nodeSelector: {} },
});

const egress = (name: string, age: number, spec: Partial<Egress['spec']>): Egress => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Egress',
  metadata: { name, creationTimestamp: new Date(age * 1000) },
  spec: { appliedTo: { podSelector: {} }, ...spec },
});

describe('IP ranges', () => {
  it('parses start-end pairs and CIDRs (network and broadcast left out above /31)', () => {
    expect(parseRange({ start: '10.0.0.1', end: '10.0.0.3' })).toEqual({ first: 167772161, last: 167772163 });
    expect(parseRange({ cidr: '10.0.0.0/30' })).toEqual({ first: 167772161, last: 167772162 });
    expect(parseRange({ cidr: '10.0.0.4/31' })).toEqual({ first: 167772164, last: 167772165 });
    expect(parseRange({ start: '10.0.0.3', end: '10.0.0.1' })).toMatch(/start after end/);
    expect(parseRange({ cidr: '10.0.0.1/30' })).toMatch(/host bits set/);
    expect(parseRange({ start: 'fd00::1', end: 'fd00::2' })).toMatch(/not IPv4/);
    expect(parseRange({ start: '10.0.0.01', end: '10.0.0.2' })).toMatch(/not IPv4/);
  });

  it('detects overlapping pools', () => {
    const a = poolRanges(pool('a', [{ cidr: '10.0.0.0/24' }])) as never;
    const b = poolRanges(pool('b', [{ start: '10.0.0.200', end: '10.0.1.5' }])) as never;
    const c = poolRanges(pool('c', [{ start: '10.0.1.0', end: '10.0.1.5' }])) as never;
    expect(rangesOverlap(a, b)).toBe(true);
    expect(rangesOverlap(a, c)).toBe(false);
  });
});

describe('planAllocations', () => {
  const pools = [pool('p', [{ start: '10.0.0.1', end: '10.0.0.3' }])];

  it('gives the lowest free IPs in age order after reserving the written ones', () => {
    const plan = planAllocations(pools, [
      egress('new', 3, { externalIPPool: 'p' }),
      egress('old', 1, { externalIPPool: 'p' }),
      egress('fixed', 2, { externalIPPool: 'p', egressIP: '10.0.0.1' }),
    ]);
    expect(Object.fromEntries(plan.toWrite)).toEqual({ old: '10.0.0.2', new: '10.0.0.3' });
    expect(plan.allocated.get('fixed')).toBe('10.0.0.1');
    expect(plan.usage.get('p')).toEqual({ total: 3, used: 3 });
  });

  it('keeps an IP written but not yet seen back with its Egress', () => {
    const plan = planAllocations(
      pools,
      [egress('a', 1, { externalIPPool: 'p' }), egress('b', 2, { externalIPPool: 'p' })],
      new Map([['b', '10.0.0.1']]),
    );
    expect(plan.toWrite.get('b')).toBe('10.0.0.1');
    expect(plan.toWrite.get('a')).toBe('10.0.0.2');
  });

  it('reports an exhausted pool, a missing pool, an IP outside the pool and a duplicate', () => {
    const plan = planAllocations(pools, [
      egress('e1', 1, { externalIPPool: 'p', egressIP: '10.0.0.1' }),
      egress('e2', 2, { externalIPPool: 'p', egressIP: '10.0.0.1' }),
      egress('e3', 3, { externalIPPool: 'p', egressIP: '10.9.9.9' }),
      egress('e4', 4, { externalIPPool: 'nope' }),
      egress('e5', 5, { externalIPPool: 'p' }),
      egress('e6', 6, { externalIPPool: 'p' }),
      egress('e7', 7, { externalIPPool: 'p' }),
      egress('static', 8, { egressIP: '10.9.9.9' }),
    ]);
    expect(Object.fromEntries(plan.failed)).toEqual({
      e2: 'IP 10.0.0.1 of ExternalIPPool p is already allocated',
      e3: 'IP 10.9.9.9 is not within the IP range of ExternalIPPool p',
      e4: 'ExternalIPPool nope does not exist',
      e7: 'ExternalIPPool p has no free IP',
    });
    expect(plan.allocated.has('static')).toBe(false);
    expect(plan.usage.get('p')).toEqual({ total: 3, used: 3 });
  });
});
