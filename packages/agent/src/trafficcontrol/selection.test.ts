import type { TrafficControl, TrafficControlAppliedTo } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { type LocalPod, selectPorts } from './selection.js';

const tc = (name: string, appliedTo: TrafficControlAppliedTo): TrafficControl => ({
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name },
  spec: { appliedTo, direction: 'Both', action: 'Mirror', targetPort: { ovsInternal: { name: 'tap0' } } },
});
const pods: LocalPod[] = [
  { namespace: 'prod', name: 'web-1', labels: { app: 'web' }, ofport: 3 },
  { namespace: 'prod', name: 'db-1', labels: { app: 'db' }, ofport: 4 },
  { namespace: 'dev', name: 'web-2', labels: { app: 'web' }, ofport: 5 },
  { namespace: 'dev', name: 'pending', labels: { app: 'web' }, ofport: undefined },
];
const nsLabels = (ns: string) => ({ 'kubernetes.io/metadata.name': ns });

describe('selectPorts', () => {
  it('selects by Pod labels everywhere, by Namespace labels, or by both', () => {
    const web = { podSelector: { matchLabels: { app: 'web' } } };
    const prod = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'prod' } } };
    expect(selectPorts([tc('a', web)], pods, nsLabels).get('a')).toEqual([3, 5]);
    expect(selectPorts([tc('a', prod)], pods, nsLabels).get('a')).toEqual([3, 4]);
    expect(selectPorts([tc('a', { ...web, ...prod })], pods, nsLabels).get('a')).toEqual([3]);
  });

  it('selects nothing with an empty appliedTo, everything with an empty selector', () => {
    expect(selectPorts([tc('a', {})], pods, nsLabels).get('a')).toEqual([]);
    expect(selectPorts([tc('a', { podSelector: {} })], pods, nsLabels).get('a')).toEqual([3, 4, 5]);
  });

  it('gives a Pod selected twice to the first TrafficControl by name only', () => {
    const all = { podSelector: {} };
    const out = selectPorts(
      [tc('b', all), tc('a', { podSelector: { matchLabels: { app: 'db' } } })],
      pods,
      nsLabels,
    );
    expect(out.get('a')).toEqual([4]);
    expect(out.get('b')).toEqual([3, 5]);
  });

  it('skips Pods whose Namespace is unknown to a namespaceSelector', () => {
    const any = { namespaceSelector: {} };
    expect(selectPorts([tc('a', any)], pods, () => undefined).get('a')).toEqual([]);
  });
});
