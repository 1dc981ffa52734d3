import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../clock.js';
import type { CrdNetworkPolicyStatus } from '../inputs.js';
import { RamStore } from '../store/ram-store.js';
import type { InternalNetworkPolicy } from '../types.js';
import { computePolicyStatus } from './policy-status.js';
import { StatusController } from './status-controller.js';

const now = new Date('2026-01-02T03:04:05.678Z');
const clock: Clock = { now: () => now, monotonicMs: () => 0 };

function np(span: string[], extra: Partial<InternalNetworkPolicy> = {}): InternalNetworkPolicy {
  return {
    name: 'uid-1',
    uid: 'uid-1',
    generation: 2,
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'acnp', uid: 'uid-1' },
    rules: [],
    appliedToGroups: [],
    priority: 1,
    tierPriority: 250,
    appliedToPerRule: false,
    span: new Set(span),
    ...extra,
  };
}

describe('computePolicyStatus', () => {
  it('is Realized when every Node of the span reported the current generation', () => {
    const { status } = computePolicyStatus(
      np(['n1', 'n2']),
      [
        { nodeName: 'n1', generation: 2, realizationFailure: false },
        { nodeName: 'n2', generation: 2, realizationFailure: false },
      ],
      now,
    );
    expect(status).toEqual({
      phase: 'Realized',
      observedGeneration: 2,
      currentNodesRealized: 2,
      desiredNodesRealized: 2,
      conditions: [{ type: 'Realizable', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z' }],
    });
  });

  it('is Realizing while reports are missing or stale, and forgets Nodes outside the span', () => {
    const r = computePolicyStatus(
      np(['n1', 'n2']),
      [
        { nodeName: 'n1', generation: 1, realizationFailure: false },
        { nodeName: 'gone', generation: 2, realizationFailure: false },
      ],
      now,
    );
    expect(r.status.phase).toBe('Realizing');
    expect(r.status.currentNodesRealized).toBe(0);
    expect(r.staleNodes).toEqual(['gone']);
  });

  it('is Failed when every Node either realized or failed, with a failure condition', () => {
    const { status } = computePolicyStatus(
      np(['n1', 'n2']),
      [
        { nodeName: 'n1', generation: 2, realizationFailure: false },
        { nodeName: 'n2', generation: 2, realizationFailure: true, message: 'boom' },
      ],
      now,
    );
    expect(status.phase).toBe('Failed');
    expect(status.conditions[1]).toEqual({
      type: 'RealizationFailure',
      status: 'True',
      lastTransitionTime: '2026-01-02T03:04:05Z',
      reason: 'NetworkPolicyRealizationFailedOnNode',
      message: 'Failed Nodes count 1: "n2":"boom"',
    });
  });

  it('is Pending with a Realizable=False condition when the policy could not be computed', () => {
    const { status } = computePolicyStatus(np([], { syncError: 'bad group' }), [], now);
    expect(status.phase).toBe('Pending');
    expect(status.conditions[0]).toMatchObject({ type: 'Realizable', status: 'False', message: 'bad group' });
  });
});

describe('StatusController', () => {
  it('writes Antrea-native policy status from agent reports, once per change', async () => {
    const store = new RamStore<InternalNetworkPolicy>('NetworkPolicy');
    const writes: [string, CrdNetworkPolicyStatus][] = [];
    const sc = new StatusController(
      store,
      {
        updateClusterNetworkPolicyStatus: async (name, s) => {
          writes.push([name, s]);
        },
        updateAntreaNetworkPolicyStatus: async () => {},
      },
      clock,
      pino({ level: 'silent' }),
    );
    store.put(np(['n1']));
    store.put({
      ...np(['n1']),
      name: 'uid-k8s',
      sourceRef: { type: 'K8sNetworkPolicy', name: 'k', namespace: 'x', uid: 'uid-k8s' },
    });
    sc.report({
      metadata: { name: 'uid-1' },
      nodes: [{ nodeName: 'n1', generation: 2, realizationFailure: false }],
    });
    sc.report({
      metadata: { name: 'uid-k8s' },
      nodes: [{ nodeName: 'n1', generation: 2, realizationFailure: false }],
    });
    expect(await sc.sync()).toBe(1);
    expect(writes[0]![0]).toBe('acnp');
    expect(writes[0]![1].phase).toBe('Realized');
    sc.report({
      metadata: { name: 'uid-1' },
      nodes: [{ nodeName: 'n1', generation: 2, realizationFailure: false }],
    });
    expect(await sc.sync()).toBe(0);
  });
});
