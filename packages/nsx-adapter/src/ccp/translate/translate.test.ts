import { STATIC_TIERS } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { NsxGroup } from '../../nsx/types.js';
import { translateFeed } from './feed.js';
import {
  AND,
  cond,
  feed,
  gp,
  group,
  ips,
  l4,
  nested,
  nsName,
  OR,
  podTag,
  policy,
  rule,
  service,
} from './fixtures.test-support.js';
import { translateGroup } from './groups.js';
import { policyPriority } from './priority.js';
import { categoryTiers, NSX_CATEGORIES, tierName, tierPriority } from './tiers.js';

const MANAGED = { 'ccp-adapter.antrea.tanzu.vmware.com/managedBy': 'ccp-adapter' };
const DN = 'ccp-adapter.antrea.tanzu.vmware.com/display-name';
const FROM = { 'ccp-adapter.antrea.tanzu.vmware.com/createdFrom': 'nsxPolicyGroup' };

const dns = service('DNS', [l4('TCP', '53')]);
const dnsUdp = service('DNS-UDP', [l4('UDP', '53')]);
const kubeDns = group('kube-dns', [nested(nsName('kube-system'), AND, podTag('dis:k8s:k8s-app|kube-dns'))]);

describe('tiers', () => {
  it('one Tier per NSX category, NSX order, names and priorities of the real adapter, no clash with static Tiers', () => {
    expect(categoryTiers()).toEqual(
      ['ethernet', 'emergency', 'infrastructure', 'environment', 'application'].map((c, i) => ({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'Tier',
        metadata: { name: `nsx-category-${c}`, labels: MANAGED, annotations: { [DN]: NSX_CATEGORIES[i] } },
        spec: { priority: i, description: `NSX DFW category ${NSX_CATEGORIES[i]}` },
      })),
    );
    for (const c of NSX_CATEGORIES) {
      expect(STATIC_TIERS.map((t) => t.name)).not.toContain(tierName(c));
      expect(STATIC_TIERS.map((t) => t.priority)).not.toContain(tierPriority(c));
      expect(tierPriority(c)).toBeLessThan(Math.min(...STATIC_TIERS.map((t) => t.priority)));
    }
  });
});

describe('priorities', () => {
  it('preserve sequence order, stay in Antrea range, and break ties below the next sequence number', () => {
    expect(policyPriority(0, 0)).toBe(1);
    expect(policyPriority(10, 0)).toBe(1.01);
    expect(policyPriority(999_999, 0)).toBe(1000.999);
    expect(policyPriority(10, 1)).toBe(1.0100001);
    expect(policyPriority(10, 9999)).toBeLessThan(policyPriority(11, 0));
    const seqs = [0, 1, 2, 50, 999, 1000, 123_456, 999_998, 999_999];
    const ps = seqs.map((s) => policyPriority(s, 0));
    expect([...ps].sort((a, b) => a - b)).toEqual(ps);
    expect(new Set(ps).size).toBe(ps.length);
  });
  it('ties in one category are ranked by id; other categories do not count', () => {
    const out = translateFeed(
      feed([
        policy('b', [], { sequence_number: 5 }),
        policy('a', [], { sequence_number: 5 }),
        policy('c', [], { sequence_number: 5, category: 'Emergency' }),
      ]),
    );
    const prio = Object.fromEntries(out.policies.map((p) => [p.metadata.name, p.spec.priority]));
    expect(prio).toEqual({ 'uid-a': 1.005, 'uid-b': 1.0050001, 'uid-c': 1.005 });
  });
});

describe('policies', () => {
  it('the real adapter k8s-core-dns shape: egress to a group, DNS ports, whole-cluster appliedTo', () => {
    const r = rule('k8s-core-dns', 'allow-dns', {
      rule_id: 2025,
      direction: 'OUT',
      destination_groups: [gp('kube-dns')],
      services: [dns.path, dnsUdp.path],
    });
    const out = translateFeed(
      feed(
        [policy('k8s-core-dns', [r], { category: 'Infrastructure', sequence_number: 10 })],
        [kubeDns],
        [dns, dnsUdp],
      ),
    );
    expect(out.outcomes).toEqual([
      {
        path: `/infra/domains/default/security-policies/k8s-core-dns`,
        revision: 3,
        name: 'uid-k8s-core-dns',
        displayName: 'k8s-core-dns',
        errors: [],
      },
    ]);
    expect(out.policies).toEqual([
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: {
          name: 'uid-k8s-core-dns',
          labels: MANAGED,
          annotations: {
            [DN]: 'k8s-core-dns',
            'ccp-adapter.antrea.tanzu.vmware.com/nsx-path':
              '/infra/domains/default/security-policies/k8s-core-dns',
            'ccp-adapter.antrea.tanzu.vmware.com/nsx-revision': '3',
          },
        },
        spec: {
          tier: 'nsx-category-infrastructure',
          priority: 1.01,
          egress: [
            {
              name: '2025',
              action: 'Allow',
              enableLogging: false,
              appliedTo: [{ podSelector: {} }],
              ports: [
                { protocol: 'TCP', port: 53 },
                { protocol: 'UDP', port: 53 },
              ],
              to: [{ group: 'uid-kube-dns' }],
            },
          ],
        },
      },
    ]);
    expect(out.clusterGroups).toEqual([
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterGroup',
        metadata: {
          name: 'uid-kube-dns',
          labels: MANAGED,
          annotations: {
            [DN]: 'kube-dns',
            ...FROM,
            'ccp-adapter.antrea.tanzu.vmware.com/nsx-path': gp('kube-dns'),
          },
        },
        spec: { childGroups: ['uid-kube-dns-0'] },
      },
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterGroup',
        metadata: {
          name: 'uid-kube-dns-0',
          labels: MANAGED,
          annotations: {
            [DN]: 'kube-dns-0',
            ...FROM,
            'ccp-adapter.antrea.tanzu.vmware.com/parent': 'uid-kube-dns',
          },
        },
        spec: {
          podSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] },
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['kube-system'] },
            ],
          },
        },
      },
    ]);
  });

  it('ingress from sources under a policy applied-to; actions, logging, disabled rules and sequence order', () => {
    const web = group('web', [podTag('dis:k8s:app|web')]);
    const db = group('db', [podTag('dis:k8s:app|db')]);
    const p = policy(
      'web-to-db',
      [
        rule('web-to-db', 'drop-rest', { rule_id: 3, sequence_number: 30, action: 'DROP', direction: 'IN' }),
        rule('web-to-db', 'allow-web', {
          rule_id: 1,
          sequence_number: 10,
          direction: 'IN',
          source_groups: [gp('web')],
          services: ['/infra/services/MySQL'],
          logged: true,
        }),
        rule('web-to-db', 'off', {
          rule_id: 2,
          sequence_number: 15,
          action: 'DROP',
          direction: 'IN',
          disabled: true,
        }),
        rule('web-to-db', 'reject-ip', {
          rule_id: 4,
          sequence_number: 20,
          action: 'REJECT',
          direction: 'IN',
          source_groups: ['10.0.0.0/8', '192.168.1.5'],
        }),
      ],
      { scope: [gp('db')], sequence_number: 20 },
    );
    const out = translateFeed(feed([p], [web, db], [service('MySQL', [l4('TCP', '3306')])]));
    expect(out.outcomes[0]?.errors).toEqual([]);
    expect(out.policies[0]?.spec).toEqual({
      tier: 'nsx-category-application',
      priority: 1.02,
      appliedTo: [{ group: 'uid-db' }],
      ingress: [
        {
          name: '1',
          action: 'Allow',
          enableLogging: true,
          ports: [{ protocol: 'TCP', port: 3306 }],
          from: [{ group: 'uid-web' }],
        },
        {
          name: '4',
          action: 'Reject',
          enableLogging: false,
          from: [{ ipBlock: { cidr: '10.0.0.0/8' } }, { ipBlock: { cidr: '192.168.1.5/32' } }],
        },
        { name: '3', action: 'Drop', enableLogging: false },
      ],
    });
    expect(out.clusterGroups.map((g) => g.metadata.name)).toEqual([
      'uid-db',
      'uid-db-0',
      'uid-web',
      'uid-web-0',
    ]);
  });

  it('IN_OUT any-any splits into one ingress and one egress rule; rule scope becomes rule appliedTo', () => {
    const web = group('web', [podTag('dis:k8s:app|web')]);
    const out = translateFeed(
      feed(
        [
          policy('p', [
            rule('p', 'any', { rule_id: 7, action: 'DROP' }),
            rule('p', 'scoped', { rule_id: 8, direction: 'IN', scope: [gp('web')] }),
          ]),
        ],
        [web],
      ),
    );
    expect(out.policies[0]?.spec).toEqual({
      tier: 'nsx-category-application',
      priority: 1,
      ingress: [
        { name: '7-in', action: 'Drop', enableLogging: false, appliedTo: [{ podSelector: {} }] },
        { name: '8', action: 'Allow', enableLogging: false, appliedTo: [{ group: 'uid-web' }] },
      ],
      egress: [{ name: '7-out', action: 'Drop', enableLogging: false, appliedTo: [{ podSelector: {} }] }],
    });
  });

  it('IN_OUT between two groups enforces at both ends', () => {
    const a = group('a', [podTag('dis:k8s:app|a')]);
    const b = group('b', [podTag('dis:k8s:app|b')]);
    const out = translateFeed(
      feed(
        [
          policy('p', [
            rule('p', 'ab', { rule_id: 9, source_groups: [gp('a')], destination_groups: [gp('b')] }),
          ]),
        ],
        [a, b],
      ),
    );
    expect(out.policies[0]?.spec.ingress).toEqual([
      {
        name: '9-in',
        action: 'Allow',
        enableLogging: false,
        appliedTo: [{ group: 'uid-b' }],
        from: [{ group: 'uid-a' }],
      },
    ]);
    expect(out.policies[0]?.spec.egress).toEqual([
      {
        name: '9-out',
        action: 'Allow',
        enableLogging: false,
        appliedTo: [{ group: 'uid-a' }],
        to: [{ group: 'uid-b' }],
      },
    ]);
  });

  it('services: port ranges, ICMP, nested services, inline entries, ANY; duplicates collapse', () => {
    const web = service('web', [l4('TCP', '80', '8000-8080', '443-443')]);
    const both = service('both', [
      { resource_type: 'NestedServiceServiceEntry', nested_service_path: web.path },
      l4('UDP'),
    ]);
    const ping = service('ping', [
      { resource_type: 'ICMPTypeServiceEntry', protocol: 'ICMPv4', icmp_type: 8, icmp_code: 0 },
    ]);
    const out = translateFeed(
      feed(
        [
          policy('p', [
            rule('p', 'r1', { rule_id: 1, direction: 'OUT', services: [both.path, web.path] }),
            rule('p', 'r2', { rule_id: 2, direction: 'OUT', services: [ping.path] }),
            rule('p', 'r3', {
              rule_id: 3,
              direction: 'OUT',
              services: ['ANY'],
              service_entries: [l4('TCP', '22')],
            }),
          ]),
        ],
        [],
        [web, both, ping],
      ),
    );
    const egress = out.policies[0]?.spec.egress ?? [];
    expect(egress[0]?.ports).toEqual([
      { protocol: 'TCP', port: 80 },
      { protocol: 'TCP', port: 8000, endPort: 8080 },
      { protocol: 'TCP', port: 443 },
      { protocol: 'UDP' },
    ]);
    expect(egress[1]?.protocols).toEqual([{ icmp: { icmpType: 8, icmpCode: 0 } }]);
    expect(egress[1]?.ports).toBeUndefined();
    expect(egress[2]?.ports).toEqual([{ protocol: 'TCP', port: 22 }]);
  });

  it('a policy whose rules are all disabled applies to every Pod and matches nothing', () => {
    const out = translateFeed(feed([policy('p', [rule('p', 'r', { disabled: true })])]));
    expect(out.policies[0]?.spec).toEqual({
      tier: 'nsx-category-application',
      priority: 1,
      appliedTo: [{ podSelector: {} }],
    });
  });
});

describe('groups', () => {
  const spec = (g: NsxGroup) => translateGroup(g).objects.map((o) => o.spec);

  it('OR splits into child groups, AND (top level and nested) merges selectors', () => {
    expect(
      spec(
        group('g', [
          podTag('dis:k8s:app|web'),
          AND,
          podTag('dis:k8s:tier|', 'EQUALS'),
          OR,
          nested(
            nsName('prod'),
            AND,
            cond('Namespace', 'Tag', 'EQUALS', 'dis:k8s:env|prod'),
            AND,
            podTag('dis:k8s:app|db', 'NOTEQUALS'),
          ),
          OR,
          ips('10.0.0.1-10.0.0.2', 'fd00::/64'),
        ]),
      ),
    ).toEqual([
      { childGroups: ['uid-g-0', 'uid-g-1', 'uid-g-2'] },
      {
        podSelector: {
          matchExpressions: [
            { key: 'app', operator: 'In', values: ['web'] },
            { key: 'tier', operator: 'Exists' },
          ],
        },
      },
      {
        podSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['db'] }] },
        namespaceSelector: {
          matchExpressions: [
            { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['prod'] },
            { key: 'env', operator: 'In', values: ['prod'] },
          ],
        },
      },
      { ipBlocks: [{ cidr: '10.0.0.1/32' }, { cidr: '10.0.0.2/32' }, { cidr: 'fd00::/64' }] },
    ]);
    expect(translateGroup(group('g', [ips('1.2.3.4')])).hasIpBlocks).toBe(true);
    expect(translateGroup(group('g', [podTag('dis:k8s:a|b')])).hasIpBlocks).toBe(false);
  });

  it('Namespace names with IN/NOTIN/NOTEQUALS, namespace-only criteria, Service references, empty groups', () => {
    expect(
      spec(group('g', [nsName('a, b', 'IN'), OR, nsName('c', 'NOTIN'), OR, nsName('d', 'NOTEQUALS')])).slice(
        1,
      ),
    ).toEqual([
      {
        namespaceSelector: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['a', 'b'] }],
        },
      },
      {
        namespaceSelector: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['c'] }],
        },
      },
      {
        namespaceSelector: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['d'] }],
        },
      },
    ]);
    expect(
      spec(group('s', [nested(cond('Service', 'Name', 'EQUALS', 'web'), AND, nsName('shop'))]))[1],
    ).toEqual({
      serviceReference: { name: 'web', namespace: 'shop' },
    });
    expect(spec(group('e', []))).toEqual([{ childGroups: [] }]);
  });

  it.each([
    ['a Pod Name condition', [cond('Pod', 'Name', 'EQUALS', 'web-1')], /Pod Name condition/],
    [
      'a VirtualMachine member',
      [cond('VirtualMachine', 'Tag', 'EQUALS', 'x|y')],
      /member type VirtualMachine/,
    ],
    ['CONTAINS', [podTag('dis:k8s:app|we', 'CONTAINS')], /operator CONTAINS/],
    ['a tag without scope', [podTag('|web')], /without a scope/],
    ['a non-Kubernetes tag scope', [podTag('owner|web')], /tag scope "owner"/],
    ['an invalid label', [podTag('dis:k8s:bad key|x')], /not a valid Kubernetes label/],
    ['a key other than Tag/Name', [cond('Pod', 'IPAddress', 'EQUALS', '1.2.3.4')], /condition key IPAddress/],
    [
      'scope_operator NOTEQUALS',
      [{ ...podTag('dis:k8s:a|b'), scope_operator: 'NOTEQUALS' } as never],
      /negation/,
    ],
    ['exclude', [{ ...podTag('dis:k8s:a|b'), exclude: { value: 'x' } } as never], /exclude/],
    [
      'PathExpression',
      [{ resource_type: 'PathExpression', paths: ['/infra/domains/default/groups/x'] }],
      /PathExpression/,
    ],
    [
      'MACAddressExpression',
      [{ resource_type: 'MACAddressExpression', mac_addresses: ['aa:bb:cc:dd:ee:ff'] }],
      /MACAddressExpression/,
    ],
    [
      'OR inside a nested expression',
      [nested(podTag('dis:k8s:a|b'), OR, podTag('dis:k8s:a|c'))],
      /OR inside a NestedExpression/,
    ],
    ['a Service without namespace', [cond('Service', 'Name', 'EQUALS', 'web')], /Service condition without/],
    [
      'a Service with a Pod condition',
      [nested(cond('Service', 'Name', 'EQUALS', 'web'), AND, nsName('a'), AND, podTag('dis:k8s:a|b'))],
      /Service condition without/,
    ],
    ['a bad IP', [ips('10.0.0.300')], /not an IP address/],
    ['a malformed list', [podTag('dis:k8s:a|b'), podTag('dis:k8s:a|c')], /malformed/],
  ])('refuses %s', (_name, expression, message) => {
    expect(() => translateGroup(group('g', expression as never))).toThrow(message);
    try {
      translateGroup(group('g', expression as never));
    } catch (err) {
      expect((err as { code: string }).code).toMatch(/^TRANSLATION_(UNSUPPORTED|INVALID)$/);
      expect((err as { nsxPath: string }).nsxPath).toBe(gp('g'));
    }
  });
});

describe('unsupported policies become realization errors, never partial policies', () => {
  const web = group('web', [podTag('dis:k8s:app|web')]);
  const corp = group('corp', [ips('10.0.0.0/8')]);
  const bad = group('bad', [cond('VirtualMachine', 'Tag', 'EQUALS', 'a|b')]);
  const svc = [
    service('v6', [{ resource_type: 'ICMPTypeServiceEntry', protocol: 'ICMPv6', icmp_type: 128 }]),
    service('gre', [{ resource_type: 'IPProtocolServiceEntry', protocol_number: 47 }]),
    service('ftp', [{ resource_type: 'ALGTypeServiceEntry' }]),
    service('src', [{ ...l4('TCP', '80'), source_ports: ['1024-65535'] }]),
    service('tcp', [l4('TCP', '80')]),
    service('icmp', [{ resource_type: 'ICMPTypeServiceEntry', protocol: 'ICMPv4' }]),
  ];
  const cases: [string, Parameters<typeof policy>[2], Parameters<typeof rule>[2], RegExp][] = [
    ['L7 context profiles', {}, { profiles: ['/infra/context-profiles/HTTP'] }, /context profiles/],
    [
      'negated sources',
      {},
      { sources_excluded: true, source_groups: [gp('web')], direction: 'IN' },
      /negated/,
    ],
    [
      'JUMP_TO_APPLICATION',
      { category: 'Environment' },
      { action: 'JUMP_TO_APPLICATION' },
      /action JUMP_TO_APPLICATION/,
    ],
    ['the Ethernet category', { category: 'Ethernet' }, {}, /category Ethernet/],
    ['an unknown category', { category: 'Default' }, {}, /category Default/],
    ['ICMPv6', {}, { services: ['/infra/services/v6'] }, /ICMP protocol ICMPv6/],
    ['IP protocol services', {}, { services: ['/infra/services/gre'] }, /IPProtocolServiceEntry/],
    ['ALG services', {}, { services: ['/infra/services/ftp'] }, /ALGTypeServiceEntry/],
    ['source ports', {}, { services: ['/infra/services/src'] }, /source ports/],
    ['ports mixed with ICMP', {}, { services: ['/infra/services/tcp', '/infra/services/icmp'] }, /mixing/],
    [
      'a missing service',
      {},
      { services: ['/infra/services/nope'] },
      /service \/infra\/services\/nope not found/,
    ],
    ['IPv4-only rules', {}, { ip_protocol: 'IPV4' }, /ip_protocol IPV4/],
    [
      'an IP literal in applied-to',
      {},
      { direction: 'IN', destination_groups: ['10.1.1.1'] },
      /IP address "10.1.1.1" in applied-to/,
    ],
    ['an IP group in applied-to', {}, { scope: [gp('corp')] }, /IP addresses in applied-to/],
    [
      'destinations together with applied-to',
      {},
      { direction: 'IN', destination_groups: [gp('web')], scope: [gp('web')] },
      /intersection/,
    ],
    [
      'destinations with a policy applied-to',
      { scope: [gp('web')] },
      { direction: 'IN', destination_groups: [gp('web')] },
      /policy applied-to/,
    ],
    [
      'an untranslatable group',
      {},
      { direction: 'IN', source_groups: [gp('bad')] },
      /member type VirtualMachine/,
    ],
    ['a missing group', {}, { direction: 'IN', source_groups: [gp('ghost')] }, /group .*ghost not found/],
    ['stateless policies', { stateful: false }, {}, /stateless/],
    ['tcp_strict', { tcp_strict: true }, {}, /tcp_strict/],
    ['time-based scheduling', { scheduler_path: '/infra/firewall-schedulers/night' }, {}, /scheduling/],
    [
      'an implicit default rule',
      { connectivity_preference: 'ALLOWLIST' },
      {},
      /connectivity_preference ALLOWLIST/,
    ],
  ];
  it.each(cases)('%s', (_name, policyExtra, ruleExtra, message) => {
    const good = policy('good', [rule('good', 'r', { direction: 'IN', source_groups: [gp('web')] })], {
      sequence_number: 1,
    });
    const p = policy(
      'p',
      [rule('p', 'ok', { rule_id: 1 }), rule('p', 'r', { rule_id: 2, ...ruleExtra })],
      policyExtra,
    );
    const out = translateFeed(feed([good, p], [web, corp, bad], svc));
    // The failing policy has no ACNP and an error; the other policy and its groups are untouched.
    expect(out.policies.map((x) => x.metadata.name)).toEqual(['uid-good']);
    expect(out.clusterGroups.map((g) => g.metadata.name)).toEqual(['uid-web', 'uid-web-0']);
    const outcome = out.outcomes.find((o) => o.path === p.path);
    expect(outcome?.name).toBeUndefined();
    expect(outcome?.errors.join('\n')).toMatch(message);
    expect(out.outcomes.find((o) => o.path === good.path)?.errors).toEqual([]);
  });

  it('collects every rule problem of a policy', () => {
    const p = policy('p', [
      rule('p', 'a', { rule_id: 1, profiles: ['/infra/context-profiles/x'] }),
      rule('p', 'b', { rule_id: 2, action: 'JUMP_TO_APPLICATION' }),
    ]);
    expect(translateFeed(feed([p])).outcomes[0]?.errors).toHaveLength(2);
  });

  it('policies marked for deletion are ignored', () => {
    expect(translateFeed(feed([policy('p', [], { marked_for_delete: true })])).outcomes).toEqual([]);
  });
});
