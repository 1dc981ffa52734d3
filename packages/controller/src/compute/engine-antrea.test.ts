import { formatIP } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdNetworkPolicy } from '../inputs.js';
import { toWireNetworkPolicy } from '../store/convert.js';
import { namespace, newWorld, node, pod, service } from '../testing/fixtures.js';
import { normalizedUID } from '../uuid.js';

function acnp(name: string, spec: Partial<CrdClusterNetworkPolicy['spec']>): CrdClusterNetworkPolicy {
  return { metadata: { name, uid: `uid-acnp-${name}`, generation: 3 }, spec: { priority: 5, ...spec } };
}

function annp(ns: string, name: string, spec: Partial<CrdNetworkPolicy['spec']>): CrdNetworkPolicy {
  return {
    metadata: { namespace: ns, name, uid: `uid-annp-${ns}-${name}`, generation: 1 },
    spec: { priority: 1, ...spec },
  };
}

function clusterGroup(name: string, spec: CrdGroup['spec']): CrdGroup {
  return { metadata: { name, uid: `uid-cg-${name}` }, spec };
}

function setup() {
  const w = newWorld();
  w.engine.upsertNamespace(namespace('x', { team: 'a' }));
  w.engine.upsertNamespace(namespace('y', { team: 'b' }));
  w.engine.upsertPod(pod('x', 'web', { app: 'web' }, { node: 'n1', ip: '10.0.1.1' }));
  w.engine.upsertPod(pod('x', 'client', { app: 'client' }, { node: 'n2', ip: '10.0.1.2' }));
  w.engine.upsertPod(pod('y', 'web', { app: 'web' }, { node: 'n3', ip: '10.0.2.1' }));
  w.engine.upsertPod(pod('y', 'client', { app: 'client' }, { node: 'n1', ip: '10.0.2.2' }));
  return w;
}

function policies(w: ReturnType<typeof newWorld>) {
  return new Map(w.networkPolicies.list().items.map((i) => [i.object.sourceRef.name, i.object]));
}

function members(w: ReturnType<typeof newWorld>, ag: string): string[] {
  return w.addressGroups
    .get(ag)!
    .object.members.map((m) =>
      m.pod ? `${m.pod.namespace}/${m.pod.name}` : `node:${m.node?.name}@${m.ips?.map(formatIP).join(',')}`,
    )
    .sort();
}

describe('Antrea ClusterNetworkPolicy', () => {
  it('carries tier priority, policy priority, rule order, actions, names and logging', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('acnp', {
        tier: 'securityops',
        appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
        ingress: [
          {
            action: 'Drop',
            from: [{ podSelector: { matchLabels: { app: 'client' } } }],
            enableLogging: true,
          },
          { action: 'Pass', name: 'pass-all', from: [] },
        ],
        egress: [
          {
            action: 'Reject',
            to: [{ ipBlock: { cidr: '0.0.0.0/0' } }],
            protocols: [{ icmp: { icmpType: 8, icmpCode: 0 } }],
          },
        ],
      }),
    );
    w.engine.flush();
    const np = policies(w).get('acnp')!;
    expect(np.sourceRef).toEqual({ type: 'AntreaClusterNetworkPolicy', name: 'acnp', uid: 'uid-acnp-acnp' });
    expect(np.tierPriority).toBe(100);
    expect(np.priority).toBe(5);
    expect(np.generation).toBe(3);
    expect(np.appliedToPerRule).toBe(false);
    const atg = normalizedUID('podSelector=app=web');
    expect(np.appliedToGroups).toEqual([atg]);
    const [drop, pass, reject] = np.rules;
    expect(drop).toMatchObject({ direction: 'In', action: 'Drop', priority: 0, enableLogging: true });
    expect(drop!.name).toMatch(/^ingress-drop-[0-9a-f]{7}$/);
    expect(drop!.from!.addressGroups).toEqual([normalizedUID('podSelector=app=client')]);
    expect(members(w, drop!.from!.addressGroups![0]!)).toEqual(['x/client', 'y/client']);
    expect(pass).toMatchObject({ action: 'Pass', priority: 1, name: 'pass-all' });
    expect(pass!.from!.ipBlocks).toHaveLength(2);
    expect(reject).toMatchObject({ direction: 'Out', action: 'Reject', priority: 0 });
    expect(reject!.services).toEqual([{ protocol: 'ICMP', icmpType: 8, icmpCode: 0 }]);
    // Cluster-wide appliedTo: Pods in every Namespace.
    expect([...np.span].sort()).toEqual(['n1', 'n3']);
  });

  it('uses the default application Tier (250) and follows custom Tiers', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('default', { appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop' }] }),
    );
    w.engine.upsertTier({ metadata: { name: 'custom' }, spec: { priority: 10 } });
    w.engine.upsertClusterNetworkPolicy(
      acnp('custom', { tier: 'custom', appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop' }] }),
    );
    w.engine.upsertClusterNetworkPolicy(
      acnp('legacy', { tier: 'Emergency', appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop' }] }),
    );
    w.engine.flush();
    expect(policies(w).get('default')!.tierPriority).toBe(250);
    expect(policies(w).get('custom')!.tierPriority).toBe(10);
    expect(policies(w).get('legacy')!.tierPriority).toBe(50);
    w.engine.upsertTier({ metadata: { name: 'custom' }, spec: { priority: 20 } });
    w.engine.flush();
    expect(policies(w).get('custom')!.tierPriority).toBe(20);
  });

  it('puts appliedTo on the rules when the spec has none', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('per-rule', {
        ingress: [
          { action: 'Allow', appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }], from: [] },
          { action: 'Drop', appliedTo: [{ namespaceSelector: { matchLabels: { team: 'b' } } }], from: [] },
        ],
      }),
    );
    w.engine.flush();
    const np = policies(w).get('per-rule')!;
    expect(np.appliedToPerRule).toBe(true);
    const webATG = normalizedUID('podSelector=app=web');
    const teamATG = normalizedUID('namespaceSelector=team=b');
    expect(np.rules[0]!.appliedToGroups).toEqual([webATG]);
    expect(np.rules[1]!.appliedToGroups).toEqual([teamATG]);
    expect(np.appliedToGroups).toEqual([webATG, teamATG].sort());
    // On the wire the policy-level list is omitted for per-rule appliedTo.
    expect(toWireNetworkPolicy(np, 7).appliedToGroups).toBeUndefined();
    expect([...np.span].sort()).toEqual(['n1', 'n3']);
  });

  it('splits `namespaces: {match: Self}` rules per Namespace and follows new Namespaces', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('self', {
        appliedTo: [{ namespaceSelector: {} }],
        ingress: [{ action: 'Allow', from: [{ namespaces: { match: 'Self' } }] }],
      }),
    );
    w.engine.flush();
    let np = policies(w).get('self')!;
    expect(np.appliedToPerRule).toBe(true);
    expect(np.rules.map((r) => r.appliedToGroups)).toEqual([
      [normalizedUID('namespace=x')],
      [normalizedUID('namespace=y')],
    ]);
    expect(np.rules.map((r) => members(w, r.from!.addressGroups![0]!))).toEqual([
      ['x/client', 'x/web'],
      ['y/client', 'y/web'],
    ]);
    w.engine.upsertNamespace(namespace('z'));
    w.engine.upsertPod(pod('z', 'p', {}, { node: 'n4', ip: '10.0.3.1' }));
    w.engine.flush();
    np = policies(w).get('self')!;
    expect(np.rules).toHaveLength(3);
    expect([...np.span].sort()).toEqual(['n1', 'n2', 'n3', 'n4']);
  });

  it('resolves ClusterGroups: selectors, ipBlocks and one level of childGroups', () => {
    const w = setup();
    w.engine.upsertClusterGroup(clusterGroup('webs', { podSelector: { matchLabels: { app: 'web' } } }));
    w.engine.upsertClusterGroup(
      clusterGroup('clients-x', {
        podSelector: { matchLabels: { app: 'client' } },
        namespaceSelector: { matchLabels: { team: 'a' } },
      }),
    );
    w.engine.upsertClusterGroup(clusterGroup('cidrs', { ipBlocks: [{ cidr: '192.168.0.0/16' }] }));
    w.engine.upsertClusterGroup(clusterGroup('parent', { childGroups: ['webs', 'clients-x', 'cidrs'] }));
    w.engine.upsertClusterNetworkPolicy(
      acnp('cg', {
        appliedTo: [{ group: 'webs' }],
        ingress: [
          { action: 'Allow', from: [{ group: 'clients-x' }] },
          { action: 'Drop', from: [{ group: 'cidrs' }] },
          { action: 'Drop', from: [{ group: 'parent' }] },
        ],
      }),
    );
    w.engine.flush();
    const np = policies(w).get('cg')!;
    expect(np.appliedToGroups).toEqual(['webs']);
    expect(w.appliedToGroups.get('webs')!.object.uid).toBe('uid-cg-webs');
    expect([...np.span].sort()).toEqual(['n1', 'n3']);
    expect(np.rules[0]!.from).toEqual({ addressGroups: ['clients-x'] });
    expect(members(w, 'clients-x')).toEqual(['x/client']);
    expect(np.rules[1]!.from!.addressGroups).toBeUndefined();
    expect(np.rules[1]!.from!.ipBlocks!.map((b) => `${formatIP(b.cidr.ip)}/${b.cidr.prefixLength}`)).toEqual([
      '192.168.0.0/16',
    ]);
    expect(np.rules[2]!.from!.addressGroups).toEqual(['parent']);
    expect(np.rules[2]!.from!.ipBlocks).toHaveLength(1);
    expect(members(w, 'parent')).toEqual(['x/client', 'x/web', 'y/web']);
  });

  it('re-translates when a referenced ClusterGroup appears or changes, and refuses nesting beyond one level', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('late', { appliedTo: [{ group: 'later' }], ingress: [{ action: 'Drop' }] }),
    );
    w.engine.flush();
    expect(policies(w).get('late')!.appliedToGroups).toEqual([]);
    w.engine.upsertClusterGroup(clusterGroup('later', { podSelector: { matchLabels: { app: 'client' } } }));
    w.engine.flush();
    expect(policies(w).get('late')!.appliedToGroups).toEqual(['later']);
    expect([...policies(w).get('late')!.span].sort()).toEqual(['n1', 'n2']);
    // A Group made of ipBlocks cannot be applied to.
    w.engine.upsertClusterGroup(clusterGroup('later', { ipBlocks: [{ cidr: '10.0.0.0/8' }] }));
    w.engine.flush();
    expect(policies(w).get('late')!.appliedToGroups).toEqual([]);
    expect(w.appliedToGroups.get('later')).toBeUndefined();
    // grandparent -> parent -> leaf exceeds the supported nesting: no members.
    w.engine.upsertClusterGroup(clusterGroup('leaf', { podSelector: {} }));
    w.engine.upsertClusterGroup(clusterGroup('mid', { childGroups: ['leaf'] }));
    w.engine.upsertClusterGroup(clusterGroup('top', { childGroups: ['mid'] }));
    w.engine.upsertClusterNetworkPolicy(
      acnp('nested', {
        appliedTo: [{ podSelector: {} }],
        ingress: [{ action: 'Drop', from: [{ group: 'top' }] }],
      }),
    );
    w.engine.flush();
    expect(policies(w).get('nested')!.rules[0]!.from).toEqual({});
  });

  it('follows a serviceReference ClusterGroup through Service selector changes', () => {
    const w = setup();
    w.engine.upsertService(service('x', 'svc', { app: 'web' }));
    w.engine.upsertClusterGroup(
      clusterGroup('svc-group', { serviceReference: { name: 'svc', namespace: 'x' } }),
    );
    w.engine.upsertClusterNetworkPolicy(
      acnp('svc', {
        appliedTo: [{ podSelector: {} }],
        ingress: [{ action: 'Allow', from: [{ group: 'svc-group' }] }],
      }),
    );
    w.engine.flush();
    expect(members(w, 'svc-group')).toEqual(['x/web']);
    w.engine.upsertService(service('x', 'svc', { app: 'client' }));
    w.engine.flush();
    expect(members(w, 'svc-group')).toEqual(['x/client']);
    w.engine.deleteService('x', 'svc');
    w.engine.flush();
    expect(members(w, 'svc-group')).toEqual([]);
  });

  it('selects Nodes with nodeSelector peers and spans NodePort Service appliedTo over every Node', () => {
    const w = setup();
    w.engine.upsertNode(node('n1', { role: 'gw' }, '192.168.0.1'));
    w.engine.upsertNode(node('n2', {}, '192.168.0.2'));
    w.engine.upsertClusterNetworkPolicy(
      acnp('nodes', {
        appliedTo: [{ service: { name: 'np-svc', namespace: 'x' } }],
        ingress: [{ action: 'Drop', from: [{ nodeSelector: { matchLabels: { role: 'gw' } } }] }],
      }),
    );
    w.engine.flush();
    const np = policies(w).get('nodes')!;
    expect(np.appliedToGroups).toEqual([normalizedUID('x/np-svc')]);
    expect([...np.span].sort()).toEqual(['n1', 'n2']);
    const ag = np.rules[0]!.from!.addressGroups![0]!;
    expect(ag).toBe(normalizedUID('nodeSelector=role=gw'));
    expect(members(w, ag)).toEqual(['node:n1@192.168.0.1']);
    w.engine.upsertNode(node('n3', { role: 'gw' }, '192.168.0.3'));
    w.engine.flush();
    expect(members(w, ag)).toEqual(['node:n1@192.168.0.1', 'node:n3@192.168.0.3']);
    expect([...policies(w).get('nodes')!.span].sort()).toEqual(['n1', 'n2', 'n3']);
  });
});

describe('Antrea NetworkPolicy (namespaced)', () => {
  it('scopes selectors to its Namespace and resolves namespaced Groups and toServices', () => {
    const w = setup();
    w.engine.upsertGroup({
      metadata: { namespace: 'x', name: 'clients', uid: 'uid-g-clients' },
      spec: { podSelector: { matchLabels: { app: 'client' } } },
    });
    w.engine.upsertAntreaNetworkPolicy(
      annp('x', 'annp', {
        tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
        ingress: [
          { action: 'Allow', from: [{ group: 'clients' }] },
          { action: 'Drop', from: [{ namespaceSelector: {} }] },
        ],
        egress: [{ action: 'Allow', toServices: [{ name: 'dns' }] }],
      }),
    );
    w.engine.flush();
    const np = policies(w).get('annp')!;
    expect(np.sourceRef).toEqual({
      type: 'AntreaNetworkPolicy',
      namespace: 'x',
      name: 'annp',
      uid: 'uid-annp-x-annp',
    });
    expect(np.appliedToGroups).toEqual([normalizedUID('namespace=x And podSelector=app=web')]);
    expect([...np.span]).toEqual(['n1']);
    expect(np.rules[0]!.from).toEqual({ addressGroups: ['x/clients'] });
    expect(members(w, 'x/clients')).toEqual(['x/client']);
    expect(members(w, np.rules[1]!.from!.addressGroups![0]!)).toHaveLength(4);
    expect(np.rules[2]!.to).toEqual({ toServices: [{ namespace: 'x', name: 'dns' }] });
  });

  it('marks a namespaced Group selecting other Namespaces as not realizable when applied to', () => {
    const w = setup();
    w.engine.upsertGroup({
      metadata: { namespace: 'x', name: 'wide', uid: 'uid-g-wide' },
      spec: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'web' } } },
    });
    w.engine.upsertAntreaNetworkPolicy(
      annp('x', 'bad', { appliedTo: [{ group: 'wide' }], ingress: [{ action: 'Drop' }] }),
    );
    w.engine.flush();
    const np = policies(w).get('bad')!;
    expect(np.syncError).toMatch(/Pods in other Namespaces can not be used as AppliedTo/);
    expect(np.span.size).toBe(0);
  });
});

describe('group queries', () => {
  it('lists effective members of a ClusterGroup and the groups of a Pod', () => {
    const w = setup();
    w.engine.upsertClusterGroup(clusterGroup('webs', { podSelector: { matchLabels: { app: 'web' } } }));
    w.engine.upsertClusterGroup(clusterGroup('cidrs', { ipBlocks: [{ cidr: '10.0.0.0/8' }] }));
    w.engine.upsertClusterGroup(clusterGroup('all', { childGroups: ['webs', 'cidrs'] }));
    w.engine.upsertGroup({
      metadata: { namespace: 'x', name: 'local-webs', uid: 'u' },
      spec: { podSelector: { matchLabels: { app: 'web' } } },
    });
    w.engine.flush();
    const all = w.engine.groupMembers('all')!;
    expect(all.members.map((m) => `${m.pod!.namespace}/${m.pod!.name}`).sort()).toEqual(['x/web', 'y/web']);
    expect(all.ipBlocks).toHaveLength(1);
    expect(w.engine.groupMembers('missing')).toBeUndefined();
    expect(w.engine.groupsForPod('x', 'web')).toEqual(['all', 'webs', 'x/local-webs']);
    expect(w.engine.groupsForPod('y', 'client')).toEqual([]);
  });
});
