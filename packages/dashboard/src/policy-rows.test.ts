import type { ClusterNetworkPolicy } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { policyRows } from './policy-rows.js';

const acnp: ClusterNetworkPolicy = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ClusterNetworkPolicy',
  metadata: { name: 'drop-b', uid: 'u-acnp' },
  spec: {
    priority: 5,
    ingress: [{ action: 'Drop', name: 'drop-web' }, { action: 'Allow' }],
    egress: [{ action: 'Reject', name: 'no-dns' }],
  },
  status: { phase: 'Realizing', observedGeneration: 1, currentNodesRealized: 1, desiredNodesRealized: 2 },
};

describe('policyRows', () => {
  it('joins status, span and stats by UID, rule stats by rule name', () => {
    const [row] = policyRows({
      k8s: [],
      clusterPolicies: [acnp],
      namespacedPolicies: [],
      stats: [
        {
          metadata: { uid: 'u-acnp' },
          trafficStats: { packets: 7, bytes: 700, sessions: 1 },
          ruleTrafficStats: [{ name: 'drop-web', trafficStats: { packets: 7, bytes: 700, sessions: 1 } }],
        },
      ],
      spans: new Map([['u-acnp', 2]]),
    });
    expect(row).toMatchObject({
      type: 'AntreaClusterNetworkPolicy',
      name: 'drop-b',
      tier: 'application',
      priority: 5,
      status: { phase: 'Realizing', currentNodesRealized: 1, desiredNodesRealized: 2, message: '' },
      spanNodes: 2,
      traffic: { packets: 7, bytes: 700, sessions: 1 },
    });
    expect(row!.rules).toEqual([
      {
        name: 'drop-web',
        direction: 'Ingress',
        action: 'Drop',
        traffic: { packets: 7, bytes: 700, sessions: 1 },
      },
      {
        name: 'ingress[1]',
        direction: 'Ingress',
        action: 'Allow',
        traffic: { packets: 0, bytes: 0, sessions: 0 },
      },
      {
        name: 'no-dns',
        direction: 'Egress',
        action: 'Reject',
        traffic: { packets: 0, bytes: 0, sessions: 0 },
      },
    ]);
  });

  it('keeps rules the agents counted under a name the spec lacks', () => {
    const [row] = policyRows({
      k8s: [],
      clusterPolicies: [{ ...acnp, spec: { priority: 1, ingress: [{ action: 'Allow' }] } }],
      namespacedPolicies: [],
      stats: [
        {
          metadata: { uid: 'u-acnp' },
          ruleTrafficStats: [{ name: 'ingress-allow-abc1234', trafficStats: { packets: 2 } }],
        },
      ],
      spans: new Map(),
    });
    expect(row!.rules.map((r) => [r.name, r.traffic?.packets])).toEqual([
      ['ingress[0]', 0],
      ['ingress-allow-abc1234', 2],
    ]);
  });

  it('gives K8s policies no realization status and no per-rule stats, only policy totals', () => {
    const rows = policyRows({
      k8s: [{ metadata: { name: 'allow-b', namespace: 'x', uid: 'u-np' }, spec: { ingress: [{}, {}] } }],
      clusterPolicies: [acnp],
      namespacedPolicies: [],
      stats: [{ metadata: { uid: 'u-np' }, trafficStats: { packets: 3, bytes: 300, sessions: 3 } }],
      spans: new Map(),
    });
    // Sorted by type, Namespace and name.
    expect(rows.map((r) => r.type)).toEqual(['AntreaClusterNetworkPolicy', 'K8sNetworkPolicy']);
    expect(rows[1]).toMatchObject({
      status: undefined,
      spanNodes: undefined,
      traffic: { packets: 3, bytes: 300, sessions: 3 },
      rules: [
        { name: 'ingress[0]', traffic: undefined },
        { name: 'ingress[1]', traffic: undefined },
      ],
    });
  });

  it('surfaces the message of a failed realization', () => {
    const failed: ClusterNetworkPolicy = {
      ...acnp,
      status: {
        phase: 'Failed',
        observedGeneration: 1,
        currentNodesRealized: 0,
        desiredNodesRealized: 1,
        conditions: [{ type: 'Realizable', status: 'False', message: 'n1: flows rejected' }],
      },
    };
    const [row] = policyRows({
      k8s: [],
      clusterPolicies: [failed],
      namespacedPolicies: [],
      stats: [],
      spans: new Map(),
    });
    expect(row!.status).toMatchObject({ phase: 'Failed', message: 'n1: flows rejected' });
  });
});
