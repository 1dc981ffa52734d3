import { describe, expect, it } from 'vitest';
import { policyWorkload } from './workload.js';

describe('policyWorkload', () => {
  it('creates groups first, then each policy and its span, referencing only the first groups', () => {
    const patches = [...policyWorkload({ policies: 2, rules: 3, groups: 4, referenced: 2, cluster: 'c1' })];
    expect(patches.map((p) => p.path.split('/').slice(4).join('/'))).toEqual([
      'groups/g0',
      'groups/g1',
      'groups/g2',
      'groups/g3',
      'security-policies/p0',
      'security-policies/p0/container-cluster-span/c1',
      'security-policies/p1',
      'security-policies/p1/container-cluster-span/c1',
    ]);
    const p1 = patches[6]!.body as { rules: { action: string; source_groups: string[] }[]; scope: string[] };
    expect(p1.rules.map((r) => r.action)).toEqual(['ALLOW', 'ALLOW', 'DROP']);
    const used = new Set([...p1.scope, ...p1.rules.flatMap((r) => r.source_groups)]);
    expect([...used].sort()).toEqual([
      '/infra/domains/default/groups/g0',
      '/infra/domains/default/groups/g1',
    ]);
  });
});
