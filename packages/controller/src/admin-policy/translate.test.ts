import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy } from '@antrea-ts/apis';
import { formatIP } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { ConnectivityOracle, type Endpoint } from '../testing/connectivity.js';
import { namespace, networkPolicy, newWorld, node, pod } from '../testing/fixtures.js';
import { RESERVED_TIER_PRIORITIES } from '../tiers.js';
import { normalizedUID } from '../uuid.js';
import {
  ADMIN_NETWORK_POLICY_TIER_PRIORITY,
  BASELINE_ADMIN_NETWORK_POLICY_PRIORITY,
  BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY,
} from './translate.js';

function anp(name: string, spec: AdminNetworkPolicy['spec']): AdminNetworkPolicy {
  return { metadata: { name, uid: `uid-anp-${name}`, generation: 2 }, spec };
}

function banp(spec: BaselineAdminNetworkPolicy['spec']): BaselineAdminNetworkPolicy {
  return { metadata: { name: 'default', uid: 'uid-banp', generation: 1 }, spec };
}

const ns = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });
const podsOf = (n: string, app?: string) => ({
  pods: { namespaceSelector: ns(n), podSelector: app ? { matchLabels: { app } } : {} },
});
/** An ANP whose one ingress rule acts on traffic from Namespace y. */
const anpFromY = (
  name: string,
  priority: number,
  action: 'Allow' | 'Deny' | 'Pass',
  subject: AdminNetworkPolicy['spec']['subject'],
) => anp(name, { priority, subject, ingress: [{ action, from: [{ namespaces: ns('y') }] }] });
const banpDenyYToX = () =>
  banp({ subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('y') }] }] });
const PORTS = [{ name: 'http', containerPort: 80, protocol: 'TCP' }];

function setup() {
  const w = newWorld();
  for (const n of ['x', 'y']) w.engine.upsertNamespace(namespace(n, { 'kubernetes.io/metadata.name': n }));
  w.engine.upsertNode(node('n1'));
  w.engine.upsertPod(pod('x', 'a', { app: 'a' }, { node: 'n1', ip: '10.0.1.1', ports: PORTS }));
  w.engine.upsertPod(pod('x', 'b', { app: 'b' }, { node: 'n1', ip: '10.0.1.2', ports: PORTS }));
  w.engine.upsertPod(pod('y', 'a', { app: 'a' }, { node: 'n2', ip: '10.0.2.1', ports: PORTS }));
  const ep = (n: string, name: string, ip: string): Endpoint => ({
    namespace: n,
    name,
    ip,
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  });
  const pods = { xa: ep('x', 'a', '10.0.1.1'), xb: ep('x', 'b', '10.0.1.2'), ya: ep('y', 'a', '10.0.2.1') };
  const oracle = new ConnectivityOracle(w);
  const verdict = (from: Endpoint, to: Endpoint, port = 80) => {
    w.engine.flush();
    return oracle.verdict(from, to, port, 'TCP');
  };
  return { w, pods, verdict };
}

function stored(w: ReturnType<typeof newWorld>, name: string) {
  return w.networkPolicies.list().items.find((i) => i.object.sourceRef.name === name)!.object;
}

describe('AdminNetworkPolicy translation', () => {
  it('is a cluster-wide policy in the tier after application, ordered by spec.priority, Deny as Drop', () => {
    const { w } = setup();
    w.engine.upsertAdminNetworkPolicy(
      anp('deny-y', {
        priority: 7,
        subject: { namespaces: ns('x') },
        ingress: [
          { name: 'no-y', action: 'Deny', from: [{ namespaces: ns('y') }] },
          { name: 'pass-x', action: 'Pass', from: [podsOf('x', 'b')] },
        ],
        egress: [
          {
            name: 'web',
            action: 'Allow',
            to: [{ networks: ['192.0.2.0/24'] }, { nodes: { matchLabels: { role: 'db' } } }],
            ports: [
              { portNumber: { protocol: 'UDP', port: 53 } },
              { portRange: { protocol: 'TCP', start: 8000, end: 8080 } },
              { namedPort: 'http' },
            ],
          },
        ],
      }),
    );
    w.engine.flush();
    const np = stored(w, 'deny-y');
    expect(np.sourceRef).toEqual({ type: 'AdminNetworkPolicy', name: 'deny-y', uid: 'uid-anp-deny-y' });
    expect([np.tierPriority, np.priority, np.generation, np.appliedToPerRule]).toEqual([
      ADMIN_NETWORK_POLICY_TIER_PRIORITY,
      7,
      2,
      false,
    ]);
    // No user Tier may take the ANP and BANP Tiers' priorities.
    expect(RESERVED_TIER_PRIORITIES.has(ADMIN_NETWORK_POLICY_TIER_PRIORITY)).toBe(true);
    expect(RESERVED_TIER_PRIORITIES.has(BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY)).toBe(true);
    expect(np.appliedToGroups).toEqual([normalizedUID('namespaceSelector=kubernetes.io/metadata.name=x')]);
    const [deny, pass, allow] = np.rules;
    expect(deny).toMatchObject({ direction: 'In', action: 'Drop', priority: 0, name: 'no-y' });
    expect(deny!.from!.addressGroups).toEqual([
      normalizedUID('namespaceSelector=kubernetes.io/metadata.name=y'),
    ]);
    expect(pass).toMatchObject({ action: 'Pass', priority: 1 });
    expect(pass!.from!.addressGroups).toEqual([
      normalizedUID('namespaceSelector=kubernetes.io/metadata.name=x And podSelector=app=b'),
    ]);
    expect(allow).toMatchObject({ direction: 'Out', action: 'Allow', priority: 0, name: 'web' });
    expect(allow!.services).toEqual([
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 8000, endPort: 8080 },
      { port: 'http' },
    ]);
    expect(allow!.to!.ipBlocks!.map((b) => `${formatIP(b.cidr.ip)}/${b.cidr.prefixLength}`)).toEqual([
      '192.0.2.0/24',
    ]);
    expect(allow!.to!.addressGroups).toEqual([normalizedUID('nodeSelector=role=db')]);
  });

  it('puts the BANP after the baseline tier with priority 1, Allow and Deny only', () => {
    const { w } = setup();
    w.engine.upsertBaselineAdminNetworkPolicy(
      banp({
        subject: podsOf('x'),
        egress: [{ name: 'deny-y', action: 'Deny', to: [{ namespaces: ns('y') }] }],
      }),
    );
    w.engine.flush();
    const np = stored(w, 'default');
    expect(np.sourceRef.type).toBe('BaselineAdminNetworkPolicy');
    expect([np.tierPriority, np.priority]).toEqual([
      BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY,
      BASELINE_ADMIN_NETWORK_POLICY_PRIORITY,
    ]);
    expect(np.rules.map((r) => [r.direction, r.action])).toEqual([['Out', 'Drop']]);
  });

  it('removes the internal policy and releases its groups when the ANP is deleted', () => {
    const { w } = setup();
    w.engine.upsertAdminNetworkPolicy(anpFromY('a', 1, 'Deny', { namespaces: ns('x') }));
    w.engine.flush();
    expect(w.networkPolicies.list().items).toHaveLength(1);
    expect([w.appliedToGroups.list().items.length, w.addressGroups.list().items.length]).toEqual([1, 1]);
    w.engine.deleteAdminNetworkPolicy('a');
    w.engine.flush();
    expect(w.networkPolicies.list().items).toHaveLength(0);
    expect([w.appliedToGroups.list().items.length, w.addressGroups.list().items.length]).toEqual([0, 0]);
  });

  it('on update keeps one internal policy and releases the groups the old spec used', () => {
    const { w } = setup();
    w.engine.upsertAdminNetworkPolicy(anpFromY('a', 1, 'Deny', { namespaces: ns('x') }));
    w.engine.flush();
    const before = stored(w, 'a');
    w.engine.upsertAdminNetworkPolicy(
      anp('a', {
        priority: 4,
        subject: podsOf('y'),
        ingress: [{ action: 'Allow', from: [{ namespaces: ns('x') }] }],
      }),
    );
    w.engine.flush();
    expect(w.networkPolicies.list().items).toHaveLength(1);
    const after = stored(w, 'a');
    expect([after.name, after.priority]).toEqual([before.name, 4]);
    const groupNames = (s: { list(): { items: { object: { name: string } }[] } }) =>
      s.list().items.map((i) => i.object.name);
    expect(groupNames(w.appliedToGroups)).toEqual(after.appliedToGroups);
    expect(groupNames(w.addressGroups)).toEqual(after.rules[0]!.from!.addressGroups);
    expect(groupNames(w.appliedToGroups)).not.toContain(before.appliedToGroups[0]);
    expect(groupNames(w.addressGroups)).not.toContain(before.rules[0]!.from!.addressGroups![0]);
  });
});

describe('AdminNetworkPolicy ordering (connectivity oracle over the computed objects)', () => {
  const allowFromY = networkPolicy('x', 'allow-y', {
    podSelector: {},
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ namespaceSelector: ns('y') }] }],
  });

  it('an ANP Deny beats a K8s NetworkPolicy that allows', () => {
    const { w, pods, verdict } = setup();
    w.engine.upsertK8sNetworkPolicy(allowFromY);
    expect(verdict(pods.ya, pods.xa)).toBe('allow');
    w.engine.upsertAdminNetworkPolicy(anpFromY('deny', 10, 'Deny', { namespaces: ns('x') }));
    expect(verdict(pods.ya, pods.xa)).toBe('drop');
  });

  it('a lower priority number wins: ANP Allow at 5 over ANP Deny at 10', () => {
    const { w, pods, verdict } = setup();
    w.engine.upsertAdminNetworkPolicy(anpFromY('deny', 10, 'Deny', { namespaces: ns('x') }));
    expect(verdict(pods.ya, pods.xa)).toBe('drop');
    w.engine.upsertAdminNetworkPolicy(anpFromY('allow', 5, 'Allow', podsOf('x', 'a')));
    expect(verdict(pods.ya, pods.xa)).toBe('allow');
    expect(verdict(pods.ya, pods.xb)).toBe('drop');
  });

  it('Pass leaves the decision to K8s NetworkPolicies, and to the BANP when none selects the Pod', () => {
    const { w, pods, verdict } = setup();
    w.engine.upsertAdminNetworkPolicy(anpFromY('pass', 1, 'Pass', { namespaces: ns('x') }));
    w.engine.upsertAdminNetworkPolicy(anpFromY('deny', 2, 'Deny', { namespaces: ns('x') }));
    w.engine.upsertBaselineAdminNetworkPolicy(banpDenyYToX());
    expect(verdict(pods.ya, pods.xa)).toBe('drop');
    w.engine.upsertK8sNetworkPolicy(allowFromY);
    expect(verdict(pods.ya, pods.xa)).toBe('allow');
  });

  it('a BANP Deny applies only to Pods no K8s NetworkPolicy selects; any ANP verdict comes first', () => {
    const { w, pods, verdict } = setup();
    w.engine.upsertBaselineAdminNetworkPolicy(banpDenyYToX());
    expect(verdict(pods.ya, pods.xa)).toBe('drop');
    w.engine.upsertAdminNetworkPolicy(anpFromY('allow', 3, 'Allow', podsOf('x', 'b')));
    expect(verdict(pods.ya, pods.xb)).toBe('allow');
    expect(verdict(pods.ya, pods.xa)).toBe('drop');
  });

  it('an egress Deny to networks drops traffic to the addresses in those CIDRs only', () => {
    const { w, pods, verdict } = setup();
    w.engine.upsertAdminNetworkPolicy(
      anp('deny-net', {
        priority: 1,
        subject: { namespaces: ns('y') },
        egress: [{ action: 'Deny', to: [{ networks: ['10.0.1.1/32'] }] }],
      }),
    );
    expect(verdict(pods.ya, pods.xa)).toBe('drop');
    expect(verdict(pods.ya, pods.xb)).toBe('allow');
  });

  it('a named port matches the destination Pod port of that name only', () => {
    const { w, pods, verdict } = setup();
    w.engine.upsertAdminNetworkPolicy(
      anp('deny-http', {
        priority: 1,
        subject: { namespaces: ns('y') },
        egress: [{ action: 'Deny', to: [{ namespaces: ns('x') }], ports: [{ namedPort: 'http' }] }],
      }),
    );
    expect(verdict(pods.ya, pods.xa, 80)).toBe('drop');
    expect(verdict(pods.ya, pods.xa, 81)).toBe('allow');
  });
});
