import type { ExternalIPPool } from '@antrea-ts/apis';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { choosePoolNode } from '../egress/egress-node-selection.js';
import type { EgressNodeInfo } from '../egress/egress-source.js';
import { placeServiceIps } from './service-ip-placement.js';

const pool = (name: string, nodeSelector: ExternalIPPool['spec']['nodeSelector'] = {}): ExternalIPPool => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ExternalIPPool',
  metadata: { name },
  spec: { ipRanges: [{ start: '10.0.0.1', end: '10.0.0.9' }], nodeSelector },
});
const pools = [pool('all'), pool('ingress', { matchLabels: { role: 'ingress' } })];
const node = (name: string, labels: Record<string, string> = {}): EgressNodeInfo => ({
  name,
  labels,
  ready: true,
  internalIp: undefined,
});
const nodes = [node('n1', { role: 'ingress' }), node('n2'), node('n3', { role: 'ingress' })];

const svc = (
  name: string,
  ip: string | undefined,
  opts: { pool?: string; type?: string; local?: boolean; hostname?: string } = {},
): V1Service => ({
  metadata: {
    name,
    namespace: 'ns',
    annotations: { 'service.antrea.io/external-ip-pool': opts.pool ?? 'all' },
  },
  spec: { type: opts.type ?? 'LoadBalancer', ...(opts.local ? { externalTrafficPolicy: 'Local' } : {}) },
  ...(ip
    ? {
        status: {
          loadBalancer: { ingress: [{ ip, ...(opts.hostname ? { hostname: opts.hostname } : {}) }] },
        },
      }
    : {}),
});

const place = (services: V1Service[], endpoints: Record<string, string[]> = {}, readyNodes = nodes) =>
  placeServiceIps({
    services,
    pool: (name) => pools.find((p) => p.metadata.name === name),
    nodes: readyNodes,
    endpointNodes: (s) => new Set(endpoints[s.metadata?.name ?? ''] ?? []),
  }).map((p) => [p.service.metadata?.name, p.ip, p.node]);

describe('placeServiceIps', () => {
  it('places each IP on the Node it hashes to among the Ready Nodes the pool selects', () => {
    const ips = Array.from({ length: 20 }, (_, i) => `10.0.0.${i + 1}`);
    const got = place(ips.map((ip, i) => svc(`s${i}`, ip, { pool: 'ingress' })));
    for (const [, ip, n] of got) expect(n).toBe(choosePoolNode(ip as string, ['n1', 'n3']));
    expect(new Set(got.map((g) => g[2]))).toEqual(new Set(['n1', 'n3']));
  });

  it('skips Services without an IP, a pool, the annotation or the LoadBalancer type', () => {
    const noAnnotation: V1Service = { metadata: { name: 'x' }, spec: { type: 'LoadBalancer' } };
    expect(
      place([
        svc('a', undefined),
        svc('b', '10.0.0.1', { pool: 'gone' }),
        svc('c', '10.0.0.2', { type: 'NodePort' }),
        noAnnotation,
      ]),
    ).toEqual([]);
  });

  it('moves an IP off a Node that is no longer Ready, and has no Node when none qualifies', () => {
    const s = svc('a', '10.0.0.4', { pool: 'ingress' });
    const first = place([s])[0]?.[2];
    expect(['n1', 'n3']).toContain(first);
    const other = first === 'n1' ? 'n3' : 'n1';
    expect(
      place(
        [s],
        {},
        nodes.filter((n) => n.name !== first),
      ),
    ).toEqual([['a', '10.0.0.4', other]]);
    expect(place([s], {}, [node('n2')])).toEqual([['a', '10.0.0.4', undefined]]);
  });

  it('externalTrafficPolicy Local: only Nodes with a ready endpoint, and the current holder keeps it', () => {
    const local = svc('web', '10.0.0.5', { local: true });
    expect(place([local], { web: ['n2'] })).toEqual([['web', '10.0.0.5', 'n2']]);
    expect(place([local], {})).toEqual([['web', '10.0.0.5', undefined]]);
    const held = svc('web', '10.0.0.5', { local: true, hostname: 'n3' });
    expect(place([held], { web: ['n1', 'n2', 'n3'] })).toEqual([['web', '10.0.0.5', 'n3']]);
    // The holder without endpoints any more gives the IP up.
    expect(place([held], { web: ['n1'] })).toEqual([['web', '10.0.0.5', 'n1']]);
  });
});
