import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { choosePoolNode } from './egress-node-selection.js';
import { MAX_EGRESS_IPS_ANNOTATION, maxEgressIpsOfNode, schedulePoolEgresses } from './egress-placement.js';
import type { EgressNodeInfo } from './egress-source.js';

const node = (name: string, labels: Record<string, string> = {}, maxEgressIps?: number): EgressNodeInfo => ({
  name,
  labels,
  ready: true,
  internalIp: undefined,
  ...(maxEgressIps !== undefined ? { maxEgressIps } : {}),
});

const egress = (name: string, ip: string, createdDay: number, pool = 'pool'): Egress =>
  ({
    metadata: { name, creationTimestamp: new Date(Date.UTC(2026, 0, createdDay)) },
    spec: { appliedTo: {}, externalIPPool: pool, egressIP: ip },
  }) as Egress;

const pool = (nodeSelector: ExternalIPPool['spec']['nodeSelector']): ExternalIPPool =>
  ({
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ExternalIPPool',
    metadata: { name: 'pool' },
    spec: { ipRanges: [], nodeSelector: nodeSelector ?? {} },
  }) as ExternalIPPool;

const where = (placements: ReturnType<typeof schedulePoolEgresses>) =>
  Object.fromEntries(
    placements.map((p) => [p.egress.metadata.name, p.node ?? `none:${p.node ? '' : p.why}`]),
  );

/** Egress names whose hash puts them on `target` among `nodes`. */
const namesOn = (target: string, nodes: string[], count: number): string[] => {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++)
    if (choosePoolNode(`eg-${i}`, nodes) === target) out.push(`eg-${i}`);
  return out;
};

describe('schedulePoolEgresses', () => {
  const nodes = [node('node-a', { role: 'egress' }), node('node-b', { role: 'egress' }), node('node-c')];

  it('places each Egress on its hash among the Ready Nodes its pool selects', () => {
    const p = pool({ matchExpressions: [{ key: 'role', operator: 'In', values: ['egress'] }] });
    const placements = schedulePoolEgresses({
      egresses: Array.from({ length: 20 }, (_, i) => egress(`eg-${i}`, `10.0.0.${i + 1}`, 1)),
      pool: () => p,
      nodes,
      maxEgressIpsPerNode: 255,
    });
    for (const pl of placements) {
      expect(pl.node).toBe(choosePoolNode(pl.egress.metadata.name ?? '', ['node-a', 'node-b']));
    }
    expect(new Set(placements.map((pl) => pl.node))).toEqual(new Set(['node-a', 'node-b']));
  });

  it('skips a Node at its cap: the oldest Egresses keep their Node, the next go to the next Node on the ring', () => {
    const [first, second, third] = namesOn('node-a', ['node-a', 'node-b'], 3) as [string, string, string];
    const p = pool({ matchLabels: { role: 'egress' } });
    const placements = schedulePoolEgresses({
      // Listed newest first: the order that counts is creation.
      egresses: [egress(third, '10.0.0.3', 3), egress(second, '10.0.0.2', 2), egress(first, '10.0.0.1', 1)],
      pool: () => p,
      nodes,
      maxEgressIpsPerNode: 2,
    });
    expect(where(placements)).toEqual({ [first]: 'node-a', [second]: 'node-a', [third]: 'node-b' });
  });

  it("takes a Node's own cap over the default, and reports full when no selected Node has room", () => {
    const [first, second] = namesOn('node-a', ['node-a', 'node-b'], 2) as [string, string];
    const p = pool({ matchLabels: { role: 'egress' } });
    const placements = schedulePoolEgresses({
      egresses: [egress(first, '10.0.0.1', 1), egress(second, '10.0.0.2', 2)],
      pool: () => p,
      nodes: [node('node-a', { role: 'egress' }, 1), node('node-b', { role: 'egress' }, 0)],
      maxEgressIpsPerNode: 255,
    });
    expect(where(placements)).toEqual({ [first]: 'node-a', [second]: 'none:full' });
  });

  it('counts two Egresses sharing one IP once', () => {
    const [first, second] = namesOn('node-a', ['node-a'], 2) as [string, string];
    const placements = schedulePoolEgresses({
      egresses: [egress(first, '10.0.0.1', 1), egress(second, '10.0.0.1', 2)],
      pool: () => pool({}),
      nodes: [node('node-a', {}, 1)],
      maxEgressIpsPerNode: 255,
    });
    expect(where(placements)).toEqual({ [first]: 'node-a', [second]: 'node-a' });
  });

  it('places nothing for a missing pool and no Node for a selector that selects none or does not compile', () => {
    const placements = schedulePoolEgresses({
      egresses: [
        egress('gone', '10.0.0.1', 1, 'missing'),
        egress('none', '10.0.0.2', 1, 'sel'),
        egress('bad', '10.0.0.3', 1, 'bad'),
      ],
      pool: (name) =>
        name === 'sel'
          ? pool({ matchLabels: { role: 'nothing' } })
          : name === 'bad'
            ? pool({ matchExpressions: [{ key: 'role', operator: 'In', values: [] }] })
            : undefined,
      nodes,
      maxEgressIpsPerNode: 255,
    });
    expect(where(placements)).toEqual({ none: 'none:noNode', bad: 'none:noNode' });
  });
});

describe('maxEgressIpsOfNode', () => {
  it('reads the annotation when it is an integer 0-255, else leaves the default to apply', () => {
    const of = (v: string) => maxEgressIpsOfNode({ [MAX_EGRESS_IPS_ANNOTATION]: v });
    expect(of('3')).toBe(3);
    expect(of('0')).toBe(0);
    expect(of('255')).toBe(255);
    expect(of('256')).toBeUndefined();
    expect(of('-1')).toBeUndefined();
    expect(of('two')).toBeUndefined();
    expect(maxEgressIpsOfNode({})).toBeUndefined();
    expect(maxEgressIpsOfNode(undefined)).toBeUndefined();
  });
});
