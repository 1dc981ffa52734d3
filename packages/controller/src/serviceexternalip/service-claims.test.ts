import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planAllocations, planPoolClaims } from '../egress/allocation-plan.js';
import { requestedPool, serviceClaim } from './service-claims.js';

const pool = (name: string, start: string, end: string): ExternalIPPool => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ExternalIPPool',
  metadata: { name },
  spec: { ipRanges: [{ start, end }], nodeSelector: {} },
});
const pools = [pool('p', '10.0.0.1', '10.0.0.3'), pool('q', '10.1.0.1', '10.1.0.2')];
const byName = (name: string) => pools.find((p) => p.metadata.name === name);

const svc = (
  name: string,
  age: number,
  opts: { pool?: string; type?: string; lbIP?: string; ingress?: string } = {},
): V1Service => ({
  metadata: {
    name,
    namespace: 'ns',
    creationTimestamp: new Date(age * 1000),
    ...(opts.pool ? { annotations: { 'service.antrea.io/external-ip-pool': opts.pool } } : {}),
  },
  spec: {
    type: opts.type ?? 'LoadBalancer',
    ...(opts.lbIP ? { loadBalancerIP: opts.lbIP } : {}),
  },
  ...(opts.ingress ? { status: { loadBalancer: { ingress: [{ ip: opts.ingress }] } } } : {}),
});

const plan = (services: V1Service[], egresses: Egress[] = []) =>
  planAllocations(
    pools,
    egresses,
    new Map(),
    services.flatMap((s) => serviceClaim(s, byName) ?? []),
  );

describe('ServiceExternalIP claims', () => {
  it('only annotated LoadBalancer Services claim an IP', () => {
    expect(requestedPool(svc('a', 1, { pool: 'p' }))).toBe('p');
    expect(requestedPool(svc('b', 1))).toBeUndefined();
    expect(requestedPool(svc('c', 1, { pool: 'p', type: 'NodePort' }))).toBeUndefined();
  });

  it('gives new Services the lowest free IPs in age order and counts them in the usage', () => {
    const p = planPoolClaims(
      pools,
      [svc('b', 2, { pool: 'p' }), svc('a', 1, { pool: 'p' })].flatMap((s) => serviceClaim(s, byName) ?? []),
    );
    expect(p.toWrite.get('Service:ns/a')).toBe('10.0.0.1');
    expect(p.toWrite.get('Service:ns/b')).toBe('10.0.0.2');
    expect(p.usage.get('p')).toEqual({ total: 3, used: 2 });
  });

  it('keeps the IP a Service holds in its pool (a restarted controller reads it back)', () => {
    const p = plan([svc('a', 1, { pool: 'p', ingress: '10.0.0.3' }), svc('b', 2, { pool: 'p' })]);
    expect(p.allocated.get('Service:ns/a')).toBe('10.0.0.3');
    expect(p.toWrite.has('Service:ns/a')).toBe(false);
    expect(p.toWrite.get('Service:ns/b')).toBe('10.0.0.1');
  });

  it('honours spec.loadBalancerIP inside the pool and fails it outside', () => {
    const p = plan([
      svc('a', 1, { pool: 'p', lbIP: '10.0.0.2' }),
      svc('b', 2, { pool: 'p', lbIP: '10.9.9.9' }),
    ]);
    expect(p.allocated.get('Service:ns/a')).toBe('10.0.0.2');
    expect(p.failed.get('Service:ns/b')).toMatch(/not within the IP range of ExternalIPPool p/);
  });

  it('allocates afresh when the annotation moves the Service to another pool', () => {
    const claim = serviceClaim(svc('a', 1, { pool: 'q', ingress: '10.0.0.1' }), byName);
    expect(claim?.ip).toBeUndefined();
    expect(plan([svc('a', 1, { pool: 'q', ingress: '10.0.0.1' })]).toWrite.get('Service:ns/a')).toBe(
      '10.1.0.1',
    );
  });

  it('shares the pools with Egresses: no IP twice, both counted', () => {
    const egress: Egress = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Egress',
      metadata: { name: 'e', creationTimestamp: new Date(0) },
      spec: { appliedTo: { podSelector: {} }, externalIPPool: 'p', egressIP: '10.0.0.1' },
    };
    const p = plan([svc('a', 1, { pool: 'p' })], [egress]);
    expect(p.allocated.get('e')).toBe('10.0.0.1');
    expect(p.toWrite.get('Service:ns/a')).toBe('10.0.0.2');
    expect(p.usage.get('p')).toEqual({ total: 3, used: 2 });
  });

  it('reports a pool without a free IP or that does not exist', () => {
    const p = plan([
      svc('a', 1, { pool: 'q' }),
      svc('b', 2, { pool: 'q' }),
      svc('c', 3, { pool: 'q' }),
      svc('d', 4, { pool: 'gone' }),
    ]);
    expect(p.failed.get('Service:ns/c')).toBe('ExternalIPPool q has no free IP');
    expect(p.failed.get('Service:ns/d')).toBe('ExternalIPPool gone does not exist');
  });
});
