import { describe, expect, it } from 'vitest';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdTier } from '../inputs.js';
import { staticTierObjects } from '../tiers.js';
import { validateGroup } from './group.js';
import { validateAntreaPolicy } from './policy.js';
import { validateTierCreate, validateTierDelete, validateTierUpdate } from './tier.js';

const tier = (name: string, priority: number): CrdTier => ({ metadata: { name }, spec: { priority } });

describe('Tier validation', () => {
  const existing = staticTierObjects();
  it('accepts a free priority and refuses reserved, taken and out-of-range ones', () => {
    expect(validateTierCreate(tier('mine', 10), { existing }).allowed).toBe(true);
    expect(validateTierCreate(tier('mine', 251), { existing }).reason).toBe(
      'tier mine priority 251 is reserved',
    );
    expect(validateTierCreate(tier('mine', 100), { existing }).reason).toBe(
      'tier mine priority 100 overlaps with existing Tier',
    );
    expect(validateTierCreate(tier('mine', 300), { existing }).allowed).toBe(false);
    expect(
      validateTierCreate(tier('mine', 220), { existing, clusterNetworkPolicyGate: true }).reason,
    ).toMatch(/reserved for upstream ClusterNetworkPolicy/);
    expect(validateTierCreate(tier('mine', 220), { existing }).allowed).toBe(true);
  });
  it('caps the number of Tiers at 20', () => {
    const many = Array.from({ length: 20 }, (_, i) => tier(`t${i}`, i));
    expect(validateTierCreate(tier('one-more', 99), { existing: many }).reason).toBe(
      'maximum number of Tiers supported: 20',
    );
  });
  it('keeps priorities immutable and static or referenced Tiers undeletable', () => {
    expect(validateTierUpdate(tier('mine', 11), tier('mine', 10)).reason).toBe(
      'update to Tier priority is not allowed',
    );
    expect(validateTierUpdate(tier('mine', 11), tier('mine', 10), { byController: true }).allowed).toBe(true);
    expect(
      validateTierDelete(tier('application', 250), { clusterNetworkPolicies: 0, antreaNetworkPolicies: 0 })
        .reason,
    ).toBe('cannot delete reserved tier application');
    expect(
      validateTierDelete(tier('mine', 10), { clusterNetworkPolicies: 2, antreaNetworkPolicies: 0 }).reason,
    ).toBe('tier mine is referenced by 2 Antrea ClusterNetworkPolicies');
    expect(
      validateTierDelete(tier('mine', 10), { clusterNetworkPolicies: 0, antreaNetworkPolicies: 0 }).allowed,
    ).toBe(true);
  });
});

describe('Antrea-native policy validation', () => {
  const ctx = { tierExists: (n: string) => ['mine', 'baseline', 'application'].includes(n) };
  const base = (spec: Partial<CrdClusterNetworkPolicy['spec']>): CrdClusterNetworkPolicy => ({
    metadata: { name: 'p' },
    spec: { priority: 1, appliedTo: [{ podSelector: {} }], ...spec },
  });
  const cases: [string, Partial<CrdClusterNetworkPolicy['spec']>, string][] = [
    ['unknown tier', { tier: 'nope', ingress: [{ action: 'Allow' }] }, 'tier nope does not exist'],
    [
      'Pass in baseline',
      { tier: 'baseline', ingress: [{ action: 'Pass' }] },
      '`Pass` action should not be set for Baseline Tier policy rules',
    ],
    [
      'duplicate rule names',
      { ingress: [{ action: 'Allow', name: 'r' }], egress: [{ action: 'Drop', name: 'r' }] },
      'rules names must be unique within the policy',
    ],
    [
      'appliedTo twice',
      { ingress: [{ action: 'Allow', appliedTo: [{ podSelector: {} }] }] },
      'appliedTo should not be set in both spec and rules',
    ],
    [
      'appliedTo nowhere',
      { appliedTo: [], ingress: [{ action: 'Allow' }] },
      'appliedTo needs to be set in either spec or rules',
    ],
    [
      'appliedTo in some rules',
      {
        appliedTo: [],
        ingress: [
          { action: 'Allow', name: 'a', appliedTo: [{ podSelector: {} }] },
          { action: 'Allow', name: 'b' },
        ],
      },
      'appliedTo field should either be set in all rules or in none of them',
    ],
    [
      'group with selector in appliedTo',
      { appliedTo: [{ group: 'g', podSelector: {} }], ingress: [{ action: 'Allow' }] },
      'group cannot be set with other peers in appliedTo',
    ],
    [
      'group with ipBlock in peer',
      { ingress: [{ action: 'Allow', from: [{ group: 'g', ipBlock: { cidr: '10.0.0.0/8' } }] }] },
      'group cannot be set with other peers in rules',
    ],
    [
      'namespaces with namespaceSelector',
      { ingress: [{ action: 'Allow', from: [{ namespaces: { match: 'Self' }, namespaceSelector: {} }] }] },
      'namespaces and namespaceSelector cannot be set at the same time for a single NetworkPolicyPeer',
    ],
    [
      'except outside cidr',
      {
        ingress: [{ action: 'Allow', from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24'] } }] }],
      },
      'except CIDR 10.1.0.0/24 is not a strict subset of CIDR 10.0.0.0/16',
    ],
    [
      'endPort below port',
      { ingress: [{ action: 'Allow', ports: [{ port: 90, endPort: 80 }] }] },
      '`endPort` should be greater than or equal to `port`',
    ],
    [
      'endPort with named port',
      { ingress: [{ action: 'Allow', ports: [{ port: 'http', endPort: 80 }] }] },
      'if `port` is a string `endPort` cannot be specified',
    ],
    [
      'toServices with ports',
      { egress: [{ action: 'Allow', toServices: [{ name: 's' }], ports: [{ port: 80 }] }] },
      '`toServices` cannot be used with `to`, `ports` or `protocols`',
    ],
    [
      'service appliedTo with egress',
      { appliedTo: [{ service: { name: 's', namespace: 'x' } }], egress: [{ action: 'Drop' }] },
      'egress rule cannot be applied to Services',
    ],
    [
      'service appliedTo with selector peer',
      {
        appliedTo: [{ service: { name: 's', namespace: 'x' } }],
        ingress: [{ action: 'Drop', from: [{ podSelector: {} }] }],
      },
      'a rule/policy that is applied to Services can only use ipBlock to select workloads',
    ],
    [
      'bad label key',
      { ingress: [{ action: 'Allow', from: [{ podSelector: { matchLabels: { 'a b': 'x' } } }] }] },
      'Invalid label key: a b',
    ],
    [
      'priority out of range',
      { priority: 0, ingress: [{ action: 'Allow' }] },
      'spec.priority must be between 1 and 10000, got 0',
    ],
    [
      'L7 disabled',
      { ingress: [{ action: 'Allow', l7Protocols: [{ http: {} }] }] },
      'layer 7 protocols can only be used when L7NetworkPolicy is enabled',
    ],
  ];
  for (const [what, spec, reason] of cases) {
    it(`refuses ${what}`, () => {
      const r = validateAntreaPolicy(base(spec), ctx);
      expect(r.allowed).toBe(false);
      expect(r.reason.startsWith(reason)).toBe(true);
    });
  }
  it('checks the characters of toFQDN patterns only (wildcards allowed)', () => {
    const fqdn = (pattern: string) =>
      validateAntreaPolicy(base({ egress: [{ action: 'Drop', name: 'e', to: [{ fqdn: pattern }] }] }), ctx);
    expect(fqdn('*.example.com').allowed).toBe(true);
    expect(fqdn('db-1.svc.example.com').allowed).toBe(true);
    expect(fqdn('example.com/path').reason).toBe(
      'invalid characters in egress rule fqdn field: example.com/path',
    );
    expect(fqdn('ex ample.com').reason).toBe('invalid characters in egress rule fqdn field: ex ample.com');
  });
  it('accepts externalEntitySelector in appliedTo and peers, with a namespaceSelector too', () => {
    const ee = { matchLabels: { role: 'db' } };
    const r = validateAntreaPolicy(
      base({
        appliedTo: [{ externalEntitySelector: ee }],
        ingress: [
          { action: 'Allow', name: 'i', from: [{ namespaceSelector: {}, externalEntitySelector: ee }] },
        ],
      }),
      ctx,
    );
    expect(r.allowed).toBe(true);
    const bad = validateAntreaPolicy(
      base({ appliedTo: [{ externalEntitySelector: { matchLabels: { 'a/b/c': 'v' } } }] }),
      ctx,
    );
    expect(bad.allowed).toBe(false);
  });
  it('accepts a well-formed policy in a custom Tier', () => {
    const r = validateAntreaPolicy(
      base({
        tier: 'mine',
        ingress: [{ action: 'Drop', name: 'a', from: [{ namespaces: { match: 'Self' } }] }],
        egress: [{ action: 'Pass', name: 'b' }],
      }),
      ctx,
    );
    expect(r).toEqual({ allowed: true, reason: '', warnings: [] });
  });
});

describe('Group validation', () => {
  const groups = new Map<string, CrdGroup>();
  const ctx = {
    get: (n: string) => groups.get(n),
    parentsOf: (n: string) =>
      [...groups.values()].filter((g) => g.spec.childGroups?.includes(n)).map((g) => g.metadata.name!),
  };
  const cg = (name: string, spec: CrdGroup['spec']): CrdGroup => ({ metadata: { name }, spec });
  it('allows namespaceSelector with podSelector and refuses other combinations', () => {
    expect(validateGroup(cg('a', { namespaceSelector: {}, podSelector: {} }), ctx).allowed).toBe(true);
    expect(
      validateGroup(cg('a', { podSelector: {}, ipBlocks: [{ cidr: '10.0.0.0/8' }] }), ctx).reason,
    ).toMatch(/^At most one of/);
  });
  it('externalEntitySelector: alone or with namespaceSelector, never with podSelector (Antrea messages)', () => {
    const ee = { matchLabels: { role: 'db' } };
    expect(validateGroup(cg('a', { externalEntitySelector: ee }), ctx).allowed).toBe(true);
    expect(validateGroup(cg('a', { namespaceSelector: {}, externalEntitySelector: ee }), ctx).allowed).toBe(
      true,
    );
    expect(validateGroup(cg('a', { podSelector: {}, externalEntitySelector: ee }), ctx).reason).toBe(
      'At most one of podSelector, nodeSelector, externalEntitySelector, serviceReference, ipBlock, ipBlocks or childGroups can be set for a ClusterGroup',
    );
    const g: CrdGroup = {
      metadata: { name: 'a', namespace: 'x' },
      spec: { namespaceSelector: {}, podSelector: {}, externalEntitySelector: ee },
    };
    expect(validateGroup(g, ctx).reason).toBe(
      'At most one of podSelector, externalEntitySelector, serviceReference, ipBlocks or childGroups can be set for a Group',
    );
    expect(
      validateGroup(cg('a', { externalEntitySelector: { matchLabels: { 'bad key!': 'v' } } }), ctx).allowed,
    ).toBe(false);
  });
  it('allows one level of childGroups only', () => {
    groups.set('leaf', cg('leaf', { podSelector: {} }));
    groups.set('mid', cg('mid', { childGroups: ['leaf'] }));
    expect(validateGroup(cg('self', { childGroups: ['self'] }), ctx).reason).toBe(
      'cannot set ClusterGroup self as its own childGroup',
    );
    expect(validateGroup(cg('top', { childGroups: ['mid'] }), ctx).reason).toBe(
      'cannot set ClusterGroup mid as childGroup, who has 1 childGroups itself',
    );
    expect(validateGroup(cg('leaf', { childGroups: ['x'] }), ctx).reason).toBe(
      'cannot set childGroups for ClusterGroup leaf, who has 1 parents',
    );
    expect(validateGroup(cg('ok', { childGroups: ['leaf'] }), ctx).allowed).toBe(true);
  });
});
