import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../store/ram-store.js';
import { namespace, networkPolicy, newWorld, pod } from '../testing/fixtures.js';
import { normalizedUID } from '../uuid.js';

type Ev = { store: string; type: string; name: string };

function setup() {
  const w = newWorld();
  const events: Ev[] = [];
  const rec = (store: string) => (e: StoreEvent<{ name: string }>) =>
    events.push({ store, type: e.type, name: e.object.name });
  w.networkPolicies.subscribe(rec('np'));
  w.appliedToGroups.subscribe(rec('atg'));
  w.addressGroups.subscribe(rec('ag'));
  w.engine.upsertNamespace(namespace('x', { env: 'dev' }));
  w.engine.upsertNamespace(namespace('y', { env: 'prod' }));
  w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n1', ip: '10.0.0.1' }));
  w.engine.upsertPod(pod('x', 'b', { app: 'b' }, { node: 'n2', ip: '10.0.0.2' }));
  w.engine.upsertPod(pod('y', 'c', { app: 'b' }, { node: 'n3', ip: '10.0.0.3' }));
  w.engine.upsertK8sNetworkPolicy(
    networkPolicy('x', 'a-from-b', {
      podSelector: { matchLabels: { app: 'a' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
    }),
  );
  w.engine.upsertK8sNetworkPolicy(
    networkPolicy('x', 'a-from-dev', {
      podSelector: { matchLabels: { app: 'a' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { env: 'dev' } } }] }],
    }),
  );
  w.engine.flush();
  events.length = 0;
  const atgA = normalizedUID('namespace=x And podSelector=app=a');
  const agB = normalizedUID('namespace=x And podSelector=app=b');
  const agDev = normalizedUID('namespaceSelector=env=dev');
  const names = (ag: string) =>
    w.addressGroups
      .get(ag)!
      .object.members.map((m) => `${m.pod!.namespace}/${m.pod!.name}`)
      .sort();
  return { ...w, events, atgA, agB, agDev, names };
}

describe('incremental updates', () => {
  it('moves a relabelled Pod between groups and touches only those', () => {
    const w = setup();
    expect(w.names(w.agB)).toEqual(['x/b']);
    w.engine.upsertPod(pod('x', 'b', { app: 'a' }, { node: 'n2', ip: '10.0.0.2' }));
    const stats = w.engine.flush();
    expect(stats.translatedPolicies).toBe(0);
    expect(w.names(w.agB)).toEqual([]);
    const atg = w.appliedToGroups.get(w.atgA)!.object;
    expect([...atg.span].sort()).toEqual(['n1', 'n2']);
    // The ATG changed (members, span), both policies' spans changed, so did both AGs' spans.
    expect(w.events.filter((e) => e.store === 'atg')).toEqual([
      { store: 'atg', type: 'MODIFIED', name: w.atgA },
    ]);
    expect(w.events.filter((e) => e.store === 'np')).toHaveLength(2);
    expect([...w.addressGroups.get(w.agDev)!.object.span].sort()).toEqual(['n1', 'n2']);
  });

  it('re-evaluates namespaceSelectors when a Namespace is relabelled', () => {
    const w = setup();
    expect(w.names(w.agDev)).toEqual(['x/a', 'x/b']);
    w.engine.upsertNamespace(namespace('y', { env: 'dev' }));
    w.engine.flush();
    expect(w.names(w.agDev)).toEqual(['x/a', 'x/b', 'y/c']);
    expect(w.events).toEqual([{ store: 'ag', type: 'MODIFIED', name: w.agDev }]);
    w.engine.deleteNamespace('x');
    w.engine.flush();
    expect(w.names(w.agDev)).toEqual(['y/c']);
  });

  it('follows a Pod moving to another Node: ATG per-Node members and every span', () => {
    const w = setup();
    w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n9', ip: '10.0.0.9' }));
    w.engine.flush();
    const atg = w.appliedToGroups.get(w.atgA)!.object;
    expect([...atg.membersByNode.keys()]).toEqual(['n9']);
    for (const item of w.networkPolicies.list().items) expect([...item.object.span]).toEqual(['n9']);
    expect([...w.addressGroups.get(w.agB)!.object.span]).toEqual(['n9']);
    // The new IP reached the AddressGroup that contains the Pod.
    expect(w.addressGroups.get(w.agDev)!.object.members.find((m) => m.pod?.name === 'a')!.ips![0]![15]).toBe(
      9,
    );
  });

  it('re-stores only the AddressGroups on a Pod IP change (AppliedToGroup members carry no IPs)', () => {
    const w = setup();
    const atgBefore = w.appliedToGroups.get(w.atgA)!;
    const agBBefore = w.addressGroups.get(w.agB)!;
    w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n1', ip: '10.0.0.7' }));
    const stats = w.engine.flush();
    expect(stats.syncedAppliedToGroups).toBe(0);
    expect(w.events).toEqual([{ store: 'ag', type: 'MODIFIED', name: w.agDev }]);
    expect(w.appliedToGroups.get(w.atgA)).toBe(atgBefore);
    expect(w.addressGroups.get(w.agB)).toBe(agBBefore);
    const a = w.addressGroups.get(w.agDev)!.object.members.find((m) => m.pod?.name === 'a')!;
    expect(a.ips![0]![15]).toBe(7);
    // The AppliedToGroup member object is kept: a later rebuild of the group changes nothing.
    w.events.length = 0;
    w.engine.upsertPod(pod('x', 'a2', { app: 'a' }, { node: 'n1', ip: '10.0.0.8' }));
    w.engine.flush();
    const atg = w.appliedToGroups.get(w.atgA)!.object;
    expect(atg.membersByNode.get('n1')).toContain(atgBefore.object.membersByNode.get('n1')![0]);
  });

  it('re-stores only the AppliedToGroups on a Pod Node change with the same IP', () => {
    const w = setup();
    const agDevBefore = w.addressGroups.get(w.agDev)!;
    w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n4', ip: '10.0.0.1' }));
    w.engine.flush();
    expect(w.events.filter((e) => e.store === 'atg')).toEqual([
      { store: 'atg', type: 'MODIFIED', name: w.atgA },
    ]);
    expect([...w.appliedToGroups.get(w.atgA)!.object.membersByNode.keys()]).toEqual(['n4']);
    // Span changes reach the AddressGroups (a new object), their members stay the same objects.
    const agDev = w.addressGroups.get(w.agDev)!.object;
    expect([...agDev.span]).toEqual(['n4']);
    expect(agDev.members).toBe(agDevBefore.object.members);
  });

  it('rebuilds both kinds of groups when a Pod stops being addressable and applicable', () => {
    const w = setup();
    w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n1', ip: '10.0.0.1', phase: 'Succeeded' }));
    w.engine.flush();
    expect(w.appliedToGroups.get(w.atgA)!.object.membersByNode.size).toBe(0);
    expect(w.names(w.agDev)).toEqual(['x/b']);
  });

  it('re-stores only the AddressGroup of a ClusterGroup used both as appliedTo and as peer on a Pod IP change', () => {
    const w = setup();
    w.engine.upsertClusterGroup({
      metadata: { name: 'as', uid: 'uid-cg-as' },
      spec: { podSelector: { matchLabels: { app: 'a' } }, namespaceSelector: {} },
    });
    w.engine.upsertClusterGroup({
      metadata: { name: 'parent', uid: 'uid-cg-parent' },
      spec: { childGroups: ['as'] },
    });
    w.engine.upsertClusterNetworkPolicy({
      metadata: { name: 'cg', uid: 'uid-acnp-cg', generation: 1 },
      spec: {
        priority: 5,
        appliedTo: [{ group: 'as' }],
        ingress: [{ action: 'Allow', from: [{ group: 'as' }, { group: 'parent' }] }],
      },
    });
    w.engine.flush();
    w.events.length = 0;
    w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n1', ip: '10.0.0.7' }));
    expect(w.engine.flush().syncedAppliedToGroups).toBe(0);
    expect(w.events.filter((e) => e.store === 'atg')).toEqual([]);
    expect(
      w.events
        .filter((e) => e.store === 'ag')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['as', 'parent', w.agDev].sort());
    for (const name of ['as', 'parent'])
      expect(w.addressGroups.get(name)!.object.members.map((m) => m.ips![0]![15])).toEqual([7]);
    // A Node change of the same Pod reaches the appliedTo group and no AddressGroup.
    w.events.length = 0;
    w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n5', ip: '10.0.0.7' }));
    w.engine.flush();
    expect(
      w.events
        .filter((e) => e.store === 'atg')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['as', w.atgA].sort());
    expect([...w.appliedToGroups.get('as')!.object.membersByNode.keys()]).toEqual(['n5']);
    for (const name of ['as', 'parent'])
      expect(w.addressGroups.get(name)!.object.members.map((m) => m.ips![0]![15])).toEqual([7]);
  });

  it('emits nothing for an update that changes nothing the groups carry', () => {
    const w = setup();
    const p = pod('x', 'b', { app: 'b' }, { node: 'n2', ip: '10.0.0.2' });
    p.metadata!.annotations = { irrelevant: 'yes' };
    w.engine.upsertPod(p);
    w.engine.upsertNamespace(namespace('x', { env: 'dev' }));
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'a-from-b', {
        podSelector: { matchLabels: { app: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
      }),
    );
    w.engine.flush();
    expect(w.events).toEqual([]);
  });

  it('updates a policy in place, creating new groups and collecting orphans', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'a-from-b', {
        podSelector: { matchLabels: { app: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'c' } } }] }],
      }),
    );
    w.engine.flush();
    const agC = normalizedUID('namespace=x And podSelector=app=c');
    expect(w.addressGroups.get(agC)).toBeDefined();
    expect(w.addressGroups.get(w.agB)).toBeUndefined();
    expect(w.events).toContainEqual({ store: 'ag', type: 'ADDED', name: agC });
    expect(w.events).toContainEqual({ store: 'ag', type: 'DELETED', name: w.agB });
    expect(w.events.filter((e) => e.store === 'np')).toEqual([
      { store: 'np', type: 'MODIFIED', name: 'uid-np-x-a-from-b' },
    ]);
  });

  it('keeps a shared group while any policy uses it and deletes it with the last one', () => {
    const w = setup();
    w.engine.deleteK8sNetworkPolicy('x', 'a-from-b');
    w.engine.flush();
    expect(w.appliedToGroups.get(w.atgA)).toBeDefined();
    expect(w.addressGroups.get(w.agB)).toBeUndefined();
    expect(w.networkPolicies.size).toBe(1);
    w.engine.deleteK8sNetworkPolicy('x', 'a-from-dev');
    w.engine.flush();
    expect(w.networkPolicies.size).toBe(0);
    expect(w.appliedToGroups.size).toBe(0);
    expect(w.addressGroups.size).toBe(0);
    expect(w.engine.counts().selectors).toBe(0);
  });

  it('shrinks an AddressGroup span when a policy using it goes away', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('y', 'c-from-dev', {
        podSelector: { matchLabels: { app: 'b' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { env: 'dev' } } }] }],
      }),
    );
    w.engine.flush();
    expect([...w.addressGroups.get(w.agDev)!.object.span].sort()).toEqual(['n1', 'n3']);
    w.engine.deleteK8sNetworkPolicy('y', 'c-from-dev');
    w.engine.flush();
    expect([...w.addressGroups.get(w.agDev)!.object.span]).toEqual(['n1']);
  });

  it('replaces the internal policy when the source is recreated with a new UID', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'a-from-b', { podSelector: {}, policyTypes: ['Ingress'] }, 'uid-new'),
    );
    w.engine.flush();
    expect(w.networkPolicies.get('uid-np-x-a-from-b')).toBeUndefined();
    expect(w.networkPolicies.get('uid-new')).toBeDefined();
  });

  it('handles a Pod deletion', () => {
    const w = setup();
    w.engine.deletePod('x', 'b');
    w.engine.flush();
    expect(w.names(w.agB)).toEqual([]);
    expect(w.names(w.agDev)).toEqual(['x/a']);
    expect(w.engine.counts().pods).toBe(2);
  });
});

describe('robustness', () => {
  it('keeps computing other policies when one cannot be translated', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'broken', {
        podSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus', values: ['x'] }] },
        policyTypes: ['Ingress'],
      }),
    );
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('y', 'fine', { podSelector: {}, policyTypes: ['Ingress'] }),
    );
    w.engine.flush();
    expect(w.engine.translateErrors).toBe(1);
    expect(w.networkPolicies.get('uid-np-y-fine')).toBeDefined();
    expect(w.networkPolicies.get('uid-np-x-broken')).toBeUndefined();
  });
});
