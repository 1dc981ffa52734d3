import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { validateEgress, validateExternalIPPool } from './validation.js';

const pool = (name: string, ipRanges: ExternalIPPool['spec']['ipRanges']): ExternalIPPool => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ExternalIPPool',
  metadata: { name },
  spec: { ipRanges, nodeSelector: {} },
});
const egress = (spec: Partial<Egress['spec']>): Egress => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Egress',
  metadata: { name: 'e' },
  spec: { appliedTo: { podSelector: {} }, ...spec },
});

describe('validateExternalIPPool', () => {
  const existing = [pool('a', [{ cidr: '10.0.0.0/24' }])];

  it('accepts disjoint ranges and refuses overlaps with Antrea’s messages', () => {
    expect(
      validateExternalIPPool(pool('b', [{ start: '10.0.1.1', end: '10.0.1.9' }]), existing).allowed,
    ).toBe(true);
    expect(
      validateExternalIPPool(pool('b', [{ start: '10.0.0.250', end: '10.0.1.9' }]), existing).reason,
    ).toBe('range [10.0.0.250-10.0.1.9] overlaps with range [10.0.0.0/24] of pool a');
    expect(
      validateExternalIPPool(
        pool('b', [{ cidr: '10.0.2.0/24' }, { start: '10.0.2.5', end: '10.0.2.6' }]),
        existing,
      ).reason,
    ).toBe('range [10.0.2.5-10.0.2.6] overlaps with range [10.0.2.0/24]');
    // Updating a pool does not clash with its own previous ranges.
    expect(validateExternalIPPool(pool('a', [{ cidr: '10.0.0.0/24' }]), existing).allowed).toBe(true);
  });

  it('refuses invalid ranges and removed ranges', () => {
    expect(validateExternalIPPool(pool('b', [{ start: '10.0.1.9', end: '10.0.1.1' }]), []).reason).toBe(
      'range start 10.0.1.9 should not be greater than range end 10.0.1.1',
    );
    expect(validateExternalIPPool(pool('b', [{ start: 'x', end: '10.0.1.1' }]), []).reason).toBe(
      'invalid start ip address x',
    );
    const old = pool('b', [{ cidr: '10.0.3.0/24' }, { start: '10.0.4.1', end: '10.0.4.2' }]);
    expect(validateExternalIPPool(pool('b', [{ cidr: '10.0.3.0/24' }]), [], old).reason).toBe(
      'existing IPRanges [10.0.4.1-10.0.4.2] cannot be deleted',
    );
  });
});

describe('validateEgress', () => {
  const pools = (name: string) =>
    name === 'p' ? pool('p', [{ start: '10.0.0.1', end: '10.0.0.9' }]) : undefined;

  it('checks the egressIP against its pool', () => {
    expect(validateEgress(egress({ externalIPPool: 'p', egressIP: '10.0.0.5' }), pools).allowed).toBe(true);
    expect(validateEgress(egress({ externalIPPool: 'p', egressIP: '10.0.1.5' }), pools).reason).toBe(
      'IP 10.0.1.5 is not within the IP range',
    );
    expect(validateEgress(egress({ externalIPPool: 'q', egressIP: '10.0.0.5' }), pools).reason).toBe(
      'ExternalIPPool q does not exist',
    );
    expect(validateEgress(egress({ externalIPPool: 'p' }), pools).allowed).toBe(true);
    expect(validateEgress(egress({ egressIP: '192.0.2.1' }), pools).allowed).toBe(true);
  });

  it('refuses the two forms together, and lets an unchanged IP and pool through', () => {
    expect(validateEgress(egress({ egressIP: '10.0.0.5', egressIPs: ['10.0.0.6'] }), pools).reason).toMatch(
      /mutually exclusive/,
    );
    const e = egress({ externalIPPool: 'q', egressIP: '10.0.0.5' });
    expect(validateEgress(e, pools, e).allowed).toBe(true);
  });
});
