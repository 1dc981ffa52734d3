import { formatIP } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { namespace, networkPolicy, newWorld, pod } from '../testing/fixtures.js';
import { normalizedUID } from '../uuid.js';

function setup() {
  const w = newWorld();
  w.engine.upsertNamespace(namespace('x', { ns: 'x' }));
  w.engine.upsertNamespace(namespace('y', { ns: 'y' }));
  w.engine.upsertPod(pod('x', 'a', { pod: 'a' }, { node: 'n1', ip: '10.0.1.1' }));
  w.engine.upsertPod(pod('x', 'b', { pod: 'b' }, { node: 'n2', ip: '10.0.1.2' }));
  w.engine.upsertPod(pod('y', 'a', { pod: 'a' }, { node: 'n3', ip: '10.0.2.1' }));
  w.engine.upsertPod(pod('y', 'b', { pod: 'b' }, { node: 'n1', ip: '10.0.2.2' }));
  return w;
}

function onlyPolicy(w: ReturnType<typeof newWorld>) {
  const items = w.networkPolicies.list().items;
  expect(items).toHaveLength(1);
  return items[0]!.object;
}

function agMembers(w: ReturnType<typeof newWorld>, name: string): string[] {
  const g = w.addressGroups.get(name)?.object;
  if (!g) throw new Error(`no AddressGroup ${name}`);
  return g.members.map((m) => `${m.pod?.namespace}/${m.pod?.name}@${m.ips?.map(formatIP).join(',')}`).sort();
}

describe('K8s NetworkPolicy translation', () => {
  it('names groups by UUIDv5 over the normalized selector and keys the policy by UID', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'np', {
        podSelector: { matchLabels: { pod: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }],
      }),
    );
    w.engine.flush();
    const np = onlyPolicy(w);
    expect(np.name).toBe('uid-np-x-np');
    expect(np.sourceRef).toEqual({
      type: 'K8sNetworkPolicy',
      namespace: 'x',
      name: 'np',
      uid: 'uid-np-x-np',
    });
    const atg = normalizedUID('namespace=x And podSelector=pod=a');
    const ag = normalizedUID('namespace=x And podSelector=pod=b');
    expect(np.appliedToGroups).toEqual([atg]);
    expect(np.rules).toEqual([
      { direction: 'In', from: { addressGroups: [ag] }, priority: -1, action: 'Allow', enableLogging: false },
    ]);
    expect(np.priority).toBeUndefined();
    expect(np.tierPriority).toBeUndefined();
    expect(agMembers(w, ag)).toEqual(['x/b@10.0.1.2']);
    // The ATG carries members without IPs, per Node.
    const atgObj = w.appliedToGroups.get(atg)!.object;
    expect([...atgObj.membersByNode.keys()]).toEqual(['n1']);
    expect(atgObj.membersByNode.get('n1')).toEqual([{ pod: { name: 'a', namespace: 'x' } }]);
  });

  it('appends a deny-all rule for a policyType without rules (isolation)', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
    );
    w.engine.flush();
    const np = onlyPolicy(w);
    expect(np.rules).toEqual([
      { direction: 'In', priority: 0, enableLogging: false },
      { direction: 'Out', priority: 0, enableLogging: false },
    ]);
    // Isolation does not need a peer group: no AddressGroups at all.
    expect(w.addressGroups.size).toBe(0);
    expect(np.appliedToGroups).toEqual([normalizedUID('namespace=x And podSelector=')]);
    expect([...np.span].sort()).toEqual(['n1', 'n2']);
  });

  it('does not isolate a direction that policyTypes leaves out', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'ingress-only', { podSelector: {}, policyTypes: ['Ingress'], ingress: [{}] }),
    );
    w.engine.flush();
    const np = onlyPolicy(w);
    expect(np.rules.map((r) => r.direction)).toEqual(['In']);
  });

  it('treats a rule with no peers (`{}`, `from: []`) as allowing every address', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'allow', { podSelector: {}, policyTypes: ['Ingress'], ingress: [{}, { from: [] }] }),
    );
    w.engine.flush();
    const np = onlyPolicy(w);
    for (const r of np.rules) {
      expect(r.from?.addressGroups).toBeUndefined();
      expect(r.from?.ipBlocks?.map((b) => `${formatIP(b.cidr.ip)}/${b.cidr.prefixLength}`)).toEqual([
        '0.0.0.0/0',
        '::/0',
      ]);
    }
  });

  it('distinguishes `ingress: []` (deny all) from `ingress: [{}]` (allow all)', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'deny', { podSelector: {}, policyTypes: ['Ingress'], ingress: [] }),
    );
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('y', 'allow', { podSelector: {}, policyTypes: ['Ingress'], ingress: [{}] }),
    );
    w.engine.flush();
    const byName = new Map(w.networkPolicies.list().items.map((i) => [i.object.sourceRef.name, i.object]));
    expect(byName.get('deny')!.rules).toEqual([{ direction: 'In', priority: 0, enableLogging: false }]);
    expect(byName.get('allow')!.rules[0]!.action).toBe('Allow');
    expect(byName.get('allow')!.rules[0]!.from?.ipBlocks).toHaveLength(2);
  });

  it('pins a peer without namespaceSelector to the policy Namespace and spreads `{}` over all', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'np', {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [
          { from: [{ podSelector: { matchLabels: { pod: 'b' } } }] },
          { from: [{ namespaceSelector: {}, podSelector: { matchLabels: { pod: 'b' } } }] },
          { from: [{ namespaceSelector: {} }] },
        ],
      }),
    );
    w.engine.flush();
    const [r0, r1, r2] = onlyPolicy(w).rules;
    expect(agMembers(w, r0!.from!.addressGroups![0]!)).toEqual(['x/b@10.0.1.2']);
    expect(agMembers(w, r1!.from!.addressGroups![0]!)).toEqual(['x/b@10.0.1.2', 'y/b@10.0.2.2']);
    expect(r2!.from!.addressGroups![0]).toBe(normalizedUID('namespaceSelector='));
    expect(agMembers(w, r2!.from!.addressGroups![0]!)).toHaveLength(4);
  });

  it('ANDs selectors within one peer and ORs across peers', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'and', {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { ns: 'y' } }, podSelector: { matchLabels: { pod: 'a' } } },
            ],
          },
        ],
      }),
    );
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'or', {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { ns: 'y' } } },
              { podSelector: { matchLabels: { pod: 'a' } } },
            ],
          },
        ],
      }),
    );
    w.engine.flush();
    const byName = new Map(w.networkPolicies.list().items.map((i) => [i.object.sourceRef.name, i.object]));
    const and = byName.get('and')!.rules[0]!.from!.addressGroups!;
    expect(and).toHaveLength(1);
    expect(agMembers(w, and[0]!)).toEqual(['y/a@10.0.2.1']);
    const or = byName.get('or')!.rules[0]!.from!.addressGroups!;
    expect(or).toHaveLength(2);
    expect(or.flatMap((g) => agMembers(w, g)).sort()).toEqual([
      'x/a@10.0.1.1',
      'y/a@10.0.2.1',
      'y/b@10.0.2.2',
    ]);
  });

  it('converts ipBlocks with except to IPNets in Go byte form', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'cidr', {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.2.0/24'] } }] }],
      }),
    );
    w.engine.flush();
    const rule = onlyPolicy(w).rules[0]!;
    const block = rule.to!.ipBlocks![0]!;
    expect(block.cidr.ip.length).toBe(16);
    expect(`${formatIP(block.cidr.ip)}/${block.cidr.prefixLength}`).toBe('10.0.0.0/8');
    expect(block.except!.map((e) => `${formatIP(e.ip)}/${e.prefixLength}`)).toEqual(['10.0.2.0/24']);
    expect(rule.to!.addressGroups).toBeUndefined();
  });

  it('keeps ports, named ports, endPort and protocols; named ports travel on group members', () => {
    const w = setup();
    w.engine.upsertPod(
      pod(
        'x',
        'web',
        { app: 'web' },
        { node: 'n1', ip: '10.0.1.9', ports: [{ name: 'http', containerPort: 8080 }] },
      ),
    );
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'ports', {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            ports: [
              { protocol: 'TCP', port: 80 },
              { protocol: 'UDP', port: 1000, endPort: 2000 },
              { protocol: 'SCTP', port: 'sctp-port' },
              { port: 'http' },
            ],
          },
        ],
      }),
    );
    w.engine.flush();
    const np = onlyPolicy(w);
    expect(np.rules[0]!.services).toEqual([
      { protocol: 'TCP', port: 80 },
      { protocol: 'UDP', port: 1000, endPort: 2000 },
      { protocol: 'SCTP', port: 'sctp-port' },
      { protocol: 'TCP', port: 'http' },
    ]);
    const atg = w.appliedToGroups.get(np.appliedToGroups[0]!)!.object;
    expect(atg.membersByNode.get('n1')).toEqual([
      { pod: { name: 'web', namespace: 'x' }, ports: [{ port: 8080, name: 'http', protocol: 'TCP' }] },
    ]);
  });

  it('adds the all-Pods AddressGroup to egress-to-anywhere rules with named ports', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'egress-named', {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ ports: [{ protocol: 'TCP', port: 'dns' }] }],
      }),
    );
    w.engine.flush();
    const to = onlyPolicy(w).rules[0]!.to!;
    expect(to.addressGroups).toEqual([normalizedUID('namespaceSelector=')]);
    expect(to.ipBlocks).toHaveLength(2);
    expect(agMembers(w, to.addressGroups![0]!)).toHaveLength(4);
  });

  it('computes spans: ATG = Nodes of its Pods, policy = union of ATGs, AG = union of its policies', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'np-a', {
        podSelector: { matchLabels: { pod: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { pod: 'b' } } }] }],
      }),
    );
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('y', 'np-a', {
        podSelector: { matchLabels: { pod: 'a' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { pod: 'b' } } }] }],
      }),
    );
    w.engine.flush();
    const spans = new Map(
      w.networkPolicies.list().items.map((i) => [i.object.sourceRef.namespace, [...i.object.span]]),
    );
    expect(spans.get('x')).toEqual(['n1']);
    expect(spans.get('y')).toEqual(['n3']);
    const ag = w.addressGroups.list().items;
    expect(ag).toHaveLength(1);
    expect([...ag[0]!.object.span].sort()).toEqual(['n1', 'n3']);
  });

  it('excludes unscheduled, terminated and hostNetwork Pods as Antrea does', () => {
    const w = setup();
    w.engine.upsertPod(pod('x', 'pending', { pod: 'a' }, { node: '', ip: '' }));
    w.engine.upsertPod(pod('x', 'done', { pod: 'a' }, { node: 'n9', ip: '10.0.1.7', phase: 'Succeeded' }));
    w.engine.upsertPod(pod('x', 'host', { pod: 'a' }, { node: 'n8', ip: '192.168.0.8', hostNetwork: true }));
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'np', {
        podSelector: { matchLabels: { pod: 'a' } },
        policyTypes: ['Egress'],
        egress: [{ to: [{ podSelector: { matchLabels: { pod: 'a' } } }] }],
      }),
    );
    w.engine.flush();
    const np = onlyPolicy(w);
    expect([...np.span]).toEqual(['n1']);
    expect(agMembers(w, np.rules[0]!.to!.addressGroups![0]!)).toEqual(['x/a@10.0.1.1']);
  });

  it('enables rule logging from the Namespace annotation and re-translates when it changes', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'deny', { podSelector: {}, policyTypes: ['Ingress'] }),
    );
    w.engine.flush();
    expect(onlyPolicy(w).rules[0]!.enableLogging).toBe(false);
    w.engine.upsertNamespace(
      namespace('x', { ns: 'x' }, { 'networkpolicy.antrea.io/enable-logging': 'true' }),
    );
    w.engine.flush();
    expect(onlyPolicy(w).rules[0]!.enableLogging).toBe(true);
  });
});
