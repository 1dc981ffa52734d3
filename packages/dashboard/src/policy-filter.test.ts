import { describe, expect, it } from 'vitest';
import { selectPolicies } from './policy-filter.js';
import type { PolicyRow } from './policy-rows.js';

const row = (type: PolicyRow['type'], namespace: string | undefined, name: string): PolicyRow => ({
  type,
  namespace,
  name,
  uid: name,
  tier: undefined,
  priority: undefined,
  status: undefined,
  spanNodes: undefined,
  traffic: { packets: 0, bytes: 0, sessions: 0 },
  rules: [],
});

const ALL = [
  row('AntreaClusterNetworkPolicy', undefined, 'drop-web'),
  row('AntreaNetworkPolicy', 'web', 'allow-db'),
  row('K8sNetworkPolicy', 'web', 'default-deny'),
  row('K8sNetworkPolicy', 'db', 'allow-web'),
];

describe('selectPolicies', () => {
  it('keeps the policies whose namespace/name contains q, of the chosen type', () => {
    expect(selectPolicies(ALL, { q: 'web' }).rows.map((r) => r.name)).toEqual([
      'drop-web',
      'allow-db',
      'default-deny',
      'allow-web',
    ]);
    expect(selectPolicies(ALL, { q: 'web/', type: 'K8s' }).rows.map((r) => r.name)).toEqual(['default-deny']);
    expect(selectPolicies(ALL, { type: 'nonsense' })).toMatchObject({ type: '', matched: 4 });
  });

  it('pages the result and clamps the page number', () => {
    expect(selectPolicies(ALL, { page: '2' }, 3)).toMatchObject({ page: 2, pages: 2, total: 4, matched: 4 });
    expect(selectPolicies(ALL, { page: '2' }, 3).rows.map((r) => r.name)).toEqual(['allow-web']);
    expect(selectPolicies(ALL, { page: '9' }, 3).page).toBe(2);
    expect(selectPolicies(ALL, { page: 'x' }, 3).page).toBe(1);
    expect(selectPolicies([], {}, 3)).toMatchObject({ rows: [], page: 1, pages: 1 });
  });
});
