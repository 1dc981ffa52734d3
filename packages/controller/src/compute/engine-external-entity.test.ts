// ExternalEntities as policy workloads, as Antrea computes them: selected only by selectors with an
// externalEntitySelector, applied to on the Node key of their spec.externalNode, addresses with the
// IPs of their endpoints and all their ports.
import { encodeGroupMember, formatIP, type GroupMember } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdNetworkPolicy } from '../inputs.js';
import { toWireAddressGroup, toWireAppliedToGroup } from '../store/convert.js';
import { type ExternalEntityOpts, externalEntity, namespace, newWorld, pod } from '../testing/fixtures.js';
import { normalizedUID } from '../uuid.js';

function acnp(name: string, spec: Partial<CrdClusterNetworkPolicy['spec']>): CrdClusterNetworkPolicy {
  return { metadata: { name, uid: `uid-acnp-${name}`, generation: 1 }, spec: { priority: 5, ...spec } };
}

function annp(ns: string, name: string, spec: Partial<CrdNetworkPolicy['spec']>): CrdNetworkPolicy {
  return {
    metadata: { namespace: ns, name, uid: `uid-annp-${ns}-${name}`, generation: 1 },
    spec: { priority: 1, ...spec },
  };
}

/** x/vm-db: on ExternalNode vm-1, two endpoints, a named and an unnamed port; parts overridable. */
function vmDb(labels: Record<string, string> = { role: 'db' }, opts: ExternalEntityOpts = {}) {
  return externalEntity('x', 'vm-db', labels, {
    externalNode: 'vm-1',
    ips: ['10.1.0.1', 'fd00::1'],
    ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }, { port: 22 }],
    ...opts,
  });
}

function setup() {
  const w = newWorld();
  w.engine.upsertNamespace(namespace('x', { team: 'a' }));
  w.engine.upsertNamespace(namespace('y', { team: 'b' }));
  w.engine.upsertExternalEntity(vmDb());
  w.engine.upsertExternalEntity(externalEntity('y', 'vm-db', { role: 'db' }, { ips: ['10.1.0.2'] }));
  w.engine.upsertExternalEntity(
    externalEntity('y', 'vm-web', { role: 'web' }, { externalNode: 'vm-2', ownerKind: 'ExternalNode' }),
  );
  // A Pod with the same labels: never selected by an externalEntitySelector.
  w.engine.upsertPod(pod('x', 'db', { role: 'db' }, { node: 'n1', ip: '10.0.0.9' }));
  return w;
}

type World = ReturnType<typeof newWorld>;

function describeMember(m: GroupMember): string {
  const ref = m.externalEntity
    ? `ee:${m.externalEntity.namespace}/${m.externalEntity.name}`
    : `pod:${m.pod?.namespace}/${m.pod?.name}`;
  const ips = m.ips ? `@${m.ips.map(formatIP).join(',')}` : '';
  const ports = m.ports ? `#${m.ports.map((p) => `${p.name}:${p.port}/${p.protocol}`).join(',')}` : '';
  return ref + ips + ports;
}

function agMembers(w: World, name: string): string[] {
  return w.addressGroups.get(name)!.object.members.map(describeMember).sort();
}

function atgMembers(w: World, name: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [n, ms] of w.appliedToGroups.get(name)!.object.membersByNode)
    out[n] = ms.map(describeMember).sort();
  return out;
}

function policy(w: World, name: string) {
  return w.networkPolicies.list().items.find((i) => i.object.sourceRef.name === name)!.object;
}

describe('ExternalEntity selection', () => {
  it('ACNP appliedTo externalEntitySelector: members per entity Node key, without IPs; no externalNode, no member', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('p', {
        appliedTo: [{ externalEntitySelector: {} }],
        ingress: [{ action: 'Drop', from: [{ ipBlock: { cidr: '1.2.3.0/24' } }] }],
      }),
    );
    w.engine.flush();
    const atg = normalizedUID('eeSelector=');
    expect(w.appliedToGroups.get(atg)!.object.selector).toBe('eeSelector=');
    expect(atgMembers(w, atg)).toEqual({
      'vm-1': ['ee:x/vm-db#pg:5432/TCP,:22/'],
      // Owned by an ExternalNode: the key is Namespace-qualified (GenerateEntityNodeKey).
      'y/vm-2': ['ee:y/vm-web'],
    });
    expect([...policy(w, 'p').span].sort()).toEqual(['vm-1', 'y/vm-2']);
  });

  it('ANNP peer externalEntitySelector: an AddressGroup in the policy Namespace with endpoint IPs and all ports', () => {
    const w = setup();
    w.engine.upsertAntreaNetworkPolicy(
      annp('x', 'p', {
        appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Allow', from: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }] }],
      }),
    );
    w.engine.flush();
    // The sorted parts: "eeSelector=..." sorts before "namespace=...".
    const name = normalizedUID('eeSelector=role=db And namespace=x');
    expect(policy(w, 'p').rules[0]!.from!.addressGroups).toEqual([name]);
    expect(policy(w, 'p').appliedToGroups).toEqual([name]);
    expect(agMembers(w, name)).toEqual(['ee:x/vm-db@10.1.0.1,fd00::1#pg:5432/TCP,:22/']);
    expect(w.addressGroups.get(name)!.object.selector).toBe('eeSelector=role=db And namespace=x');
    expect([...w.addressGroups.get(name)!.object.span]).toEqual(['vm-1']);
  });

  it('namespaceSelector + externalEntitySelector across Namespaces; an entity without endpoints is a member without IPs', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('p', {
        appliedTo: [{ podSelector: {} }],
        egress: [
          {
            action: 'Allow',
            to: [{ namespaceSelector: {}, externalEntitySelector: { matchLabels: { role: 'db' } } }],
          },
        ],
      }),
    );
    w.engine.flush();
    const name = normalizedUID('eeSelector=role=db And namespaceSelector=');
    expect(agMembers(w, name)).toEqual([
      'ee:x/vm-db@10.1.0.1,fd00::1#pg:5432/TCP,:22/',
      'ee:y/vm-db@10.1.0.2',
    ]);
  });

  it('a peer with podSelector and externalEntitySelector names both and selects ExternalEntities by the latter', () => {
    const w = setup();
    w.engine.upsertAntreaNetworkPolicy(
      annp('x', 'p', {
        appliedTo: [{ podSelector: {} }],
        ingress: [
          {
            action: 'Allow',
            from: [{ podSelector: { matchLabels: { role: 'web' } }, externalEntitySelector: {} }],
          },
        ],
      }),
    );
    w.engine.flush();
    const name = normalizedUID('eeSelector= And namespace=x And podSelector=role=web');
    expect(agMembers(w, name)).toEqual(['ee:x/vm-db@10.1.0.1,fd00::1#pg:5432/TCP,:22/']);
    // The Pod selector group of the appliedTo selects the Pod only.
    expect(atgMembers(w, normalizedUID('namespace=x And podSelector='))).toEqual({ n1: ['pod:x/db'] });
  });

  it('ClusterGroup externalEntitySelector as appliedTo and peer; a Group reaching other Namespaces cannot be applied to', () => {
    const w = setup();
    const cg: CrdGroup = {
      metadata: { name: 'vms', uid: 'uid-cg-vms' },
      spec: { externalEntitySelector: { matchLabels: { role: 'db' } } },
    };
    const g: CrdGroup = {
      metadata: { name: 'all-vms', namespace: 'x', uid: 'uid-g-all' },
      spec: { namespaceSelector: {}, externalEntitySelector: {} },
    };
    w.engine.upsertClusterGroup(cg);
    w.engine.upsertGroup(g);
    w.engine.upsertClusterNetworkPolicy(
      acnp('c', { appliedTo: [{ group: 'vms' }], ingress: [{ action: 'Allow', from: [{ group: 'vms' }] }] }),
    );
    w.engine.upsertAntreaNetworkPolicy(
      annp('x', 'n', { appliedTo: [{ group: 'all-vms' }], ingress: [{ action: 'Drop', from: [] }] }),
    );
    w.engine.flush();
    expect(atgMembers(w, 'vms')).toEqual({ 'vm-1': ['ee:x/vm-db#pg:5432/TCP,:22/'] });
    expect(agMembers(w, 'vms')).toEqual([
      'ee:x/vm-db@10.1.0.1,fd00::1#pg:5432/TCP,:22/',
      'ee:y/vm-db@10.1.0.2',
    ]);
    expect(w.appliedToGroups.get('x/all-vms')!.object.syncError).toBe(
      'Group x/all-vms with Pods in other Namespaces can not be used as AppliedTo',
    );
    expect(w.engine.groupMembers('vms')!.members.map(describeMember).sort()).toEqual(agMembers(w, 'vms'));
  });
});

describe('ExternalEntity incremental updates', () => {
  function withPolicy() {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('p', {
        appliedTo: [{ namespaceSelector: { matchLabels: { team: 'a' } }, externalEntitySelector: {} }],
        ingress: [
          {
            action: 'Allow',
            from: [{ namespaceSelector: {}, externalEntitySelector: { matchLabels: { role: 'db' } } }],
          },
        ],
      }),
    );
    w.engine.flush();
    return {
      w,
      atg: normalizedUID('eeSelector= And namespaceSelector=team=a'),
      ag: normalizedUID('eeSelector=role=db And namespaceSelector='),
    };
  }

  it('a label change moves the entity out of one group and leaves the others untouched', () => {
    const { w, atg, ag } = withPolicy();
    const atgBefore = w.appliedToGroups.get(atg)!;
    w.engine.upsertExternalEntity(vmDb({ role: 'cache' }));
    w.engine.flush();
    expect(agMembers(w, ag)).toEqual(['ee:y/vm-db@10.1.0.2']);
    // Still selected by the appliedTo (any label in Namespace x): no new object.
    expect(w.appliedToGroups.get(atg)).toBe(atgBefore);
  });

  it('an endpoint change updates the AddressGroup only; an externalNode change moves the AppliedToGroup member', () => {
    const { w, atg, ag } = withPolicy();
    const atgBefore = w.appliedToGroups.get(atg)!;
    const eeX = (ips: string[], node: string) => vmDb(undefined, { ips, externalNode: node });
    w.engine.upsertExternalEntity(eeX(['10.1.0.7'], 'vm-1'));
    w.engine.flush();
    expect(agMembers(w, ag)).toEqual(['ee:x/vm-db@10.1.0.7#pg:5432/TCP,:22/', 'ee:y/vm-db@10.1.0.2']);
    expect(w.appliedToGroups.get(atg)).toBe(atgBefore);
    const agBefore = w.addressGroups.get(ag)!;
    w.engine.upsertExternalEntity(eeX(['10.1.0.7'], 'vm-9'));
    w.engine.flush();
    expect(atgMembers(w, atg)).toEqual({ 'vm-9': ['ee:x/vm-db#pg:5432/TCP,:22/'] });
    expect([...policy(w, 'p').span]).toEqual(['vm-9']);
    expect(w.addressGroups.get(ag)!.object.members).toEqual(agBefore.object.members);
    expect([...w.addressGroups.get(ag)!.object.span]).toEqual(['vm-9']);
  });

  it('a ports-only change reaches both kinds of group', () => {
    const { w, atg, ag } = withPolicy();
    w.engine.upsertExternalEntity(vmDb(undefined, { ports: [{ name: 'pg', port: 6432, protocol: 'TCP' }] }));
    w.engine.flush();
    expect(atgMembers(w, atg)).toEqual({ 'vm-1': ['ee:x/vm-db#pg:6432/TCP'] });
    expect(agMembers(w, ag)).toContain('ee:x/vm-db@10.1.0.1,fd00::1#pg:6432/TCP');
  });

  it('a delete removes the entity everywhere; the policy span follows', () => {
    const { w, atg, ag } = withPolicy();
    w.engine.deleteExternalEntity('x', 'vm-db');
    w.engine.flush();
    expect(agMembers(w, ag)).toEqual(['ee:y/vm-db@10.1.0.2']);
    expect(atgMembers(w, atg)).toEqual({});
    expect([...policy(w, 'p').span]).toEqual([]);
  });

  it('a Namespace relabel moves its entities in and out of namespaceSelector groups', () => {
    const { w, atg } = withPolicy();
    w.engine.upsertNamespace(namespace('y', { team: 'a' }));
    w.engine.flush();
    expect(atgMembers(w, atg)).toEqual({
      'vm-1': ['ee:x/vm-db#pg:5432/TCP,:22/'],
      'y/vm-2': ['ee:y/vm-web'],
    });
    w.engine.upsertNamespace(namespace('x', { team: 'b' }));
    w.engine.flush();
    expect(atgMembers(w, atg)).toEqual({ 'y/vm-2': ['ee:y/vm-web'] });
    expect([...policy(w, 'p').span]).toEqual(['y/vm-2']);
  });
});

describe('ExternalEntity members on the wire', () => {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

  it('AddressGroup member: externalEntity = field 2, ips = field 3 (16-byte IPv4), ports = field 4 with every field written', () => {
    const w = newWorld();
    w.engine.upsertNamespace(namespace('x'));
    w.engine.upsertExternalEntity(
      externalEntity('x', 'vm', { a: 'b' }, { externalNode: 'n', ips: ['10.0.0.5'], ports: [{ port: 22 }] }),
    );
    w.engine.upsertAntreaNetworkPolicy(
      annp('x', 'p', {
        appliedTo: [{ externalEntitySelector: {} }],
        ingress: [{ action: 'Allow', from: [{ externalEntitySelector: {} }] }],
      }),
    );
    w.engine.flush();
    const name = normalizedUID('eeSelector= And namespace=x');
    const [agMember] = toWireAddressGroup(w.addressGroups.get(name)!.object, 1).groupMembers!;
    const expected = [
      '12 07 0a02766d 120178', // externalEntity {name "vm", namespace "x"}
      '1a 10 00000000000000000000ffff0a000005', // ips: Go's 16-byte form of 10.0.0.5
      '22 06 0816 1200 1a00', // ports: {port 22, name "", protocol ""} (Go writes empty strings)
    ].join('');
    expect(hex(encodeGroupMember(agMember!))).toBe(expected.replace(/\s/g, ''));
    const [atgMember] = toWireAppliedToGroup(w.appliedToGroups.get(name)!.object, 1, 'n').groupMembers!;
    expect(hex(encodeGroupMember(atgMember!))).toBe(
      '12070a02766d120178 22060816 1200 1a00'.replace(/\s/g, ''),
    );
  });
});
