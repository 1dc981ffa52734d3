import type { GroupMember, NetworkPolicy } from '@antrea-ts/apis';
import { formatFlow } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../openflow/cookie.js';
import { conjunctionFlows, isolationFlows, policyBaseFlows } from '../openflow/features/network-policy.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { RuleCache } from './rule-cache.js';
import { ConjIdAllocator, computePolicyFlows, resolveServices } from './rule-flows.js';

const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
const v4 = (s: string) => Uint8Array.from(s.split('.').map(Number));
const pod = (ns: string, name: string, ip?: string, ports?: GroupMember['ports']): GroupMember => ({
  pod: { namespace: ns, name },
  ...(ip ? { ips: [v4(ip)] } : {}),
  ...(ports ? { ports } : {}),
});
const net = (s: string) => {
  const [ip, len] = s.split('/');
  return { ip: v4(ip!), prefixLength: Number(len) };
};

function k8sPolicy(name: string, rules: NetworkPolicy['rules']): NetworkPolicy {
  return {
    metadata: { name, generation: 1 },
    rules,
    appliedToGroups: ['atg-web'],
    sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name, uid: name },
  };
}

function cacheWith(policies: NetworkPolicy[], extraPeers = 0): RuleCache {
  const c = new RuleCache();
  c.setPods([
    { namespace: 'ns', name: 'web-1', ofport: 3, ip: '10.10.0.3' },
    { namespace: 'ns', name: 'web-2', ofport: 4, ip: '10.10.0.4' },
    { namespace: 'ns', name: 'db', ofport: 5, ip: '10.10.0.5' },
  ]);
  c.replaceGroups('appliedtogroups', [
    {
      metadata: { name: 'atg-web' },
      groupMembers: [
        pod('ns', 'web-1', undefined, [{ name: 'http', port: 8080, protocol: 'TCP' }]),
        pod('ns', 'web-2', undefined, [{ name: 'http', port: 9090, protocol: 'TCP' }]),
        pod('ns', 'remote'),
      ],
    },
    { metadata: { name: 'atg-db' }, groupMembers: [pod('ns', 'db')] },
  ]);
  const clients = [pod('ns', 'client-a', '10.10.1.8'), pod('ns', 'client-b', '10.10.1.9')];
  for (let i = 0; i < extraPeers; i++) clients.push(pod('other', `p${i}`, `10.20.${i >> 8}.${i & 0xff}`));
  c.replaceGroups('addressgroups', [{ metadata: { name: 'ag-clients' }, groupMembers: clients }]);
  c.replacePolicies(policies);
  return c;
}

const text = (cache: RuleCache) => {
  const computed = computePolicyFlows(cache.rules(), new ConjIdAllocator());
  return [...conjunctionFlows(ctx, computed.conjunctions), ...isolationFlows(ctx, computed.isolation)].map(
    (f) => formatFlow(f),
  );
};

describe('policy flows', () => {
  it('K8s NetworkPolicy: conjunction clauses, shared matches, isolation per applied-to Pod', () => {
    const cache = cacheWith([
      k8sPolicy('np1', [
        {
          direction: 'In',
          from: {
            addressGroups: ['ag-clients'],
            ipBlocks: [{ cidr: net('192.168.0.0/24'), except: [net('192.168.0.128/25')] }],
          },
          services: [
            { protocol: 'TCP', port: 80 },
            { protocol: 'UDP', port: 5000, endPort: 5003 },
          ],
          priority: -1,
          action: 'Allow',
          enableLogging: false,
        },
        { direction: 'Out', priority: 0, enableLogging: false },
      ]),
      k8sPolicy('np2', [
        {
          direction: 'In',
          from: { addressGroups: ['ag-clients'] },
          priority: -1,
          action: 'Allow',
          enableLogging: false,
        },
      ]),
    ]);
    expect(text(cache)).toMatchInlineSnapshot(`
      [
        "cookie=0x1020000000001, table=24, priority=190,conj_id=1,ip actions=set_field:0x1->reg3,ct(commit,table=26,zone=65520,exec(set_field:0x1/0xffffffff->ct_label))",
        "cookie=0x1020000000001, table=26, priority=200,ct_state=+new+trk,ip,reg3=0x1 actions=goto_table:27",
        "cookie=0x1020000000001, table=26, priority=200,ct_state=-new+trk,ct_label=0x1/0xffffffff,ip actions=goto_table:27",
        "cookie=0x1020000000002, table=24, priority=190,conj_id=2,ip actions=set_field:0x2->reg3,ct(commit,table=26,zone=65520,exec(set_field:0x2/0xffffffff->ct_label))",
        "cookie=0x1020000000002, table=26, priority=200,ct_state=+new+trk,ip,reg3=0x2 actions=goto_table:27",
        "cookie=0x1020000000002, table=26, priority=200,ct_state=-new+trk,ct_label=0x2/0xffffffff,ip actions=goto_table:27",
        "cookie=0x1020000000000, table=24, priority=200,ip,nw_src=10.10.1.8/31 actions=conjunction(1,1/3),conjunction(2,1/3)",
        "cookie=0x1020000000000, table=24, priority=200,ip,nw_src=192.168.0.0/25 actions=conjunction(1,1/3)",
        "cookie=0x1020000000000, table=24, priority=200,ip,reg1=0x3 actions=conjunction(1,2/3),conjunction(2,2/3)",
        "cookie=0x1020000000000, table=24, priority=200,ip,reg1=0x4 actions=conjunction(1,2/3),conjunction(2,2/3)",
        "cookie=0x1020000000000, table=24, priority=200,tcp,tp_dst=80 actions=conjunction(1,3/3)",
        "cookie=0x1020000000000, table=24, priority=200,udp,tp_dst=0x1388/0xfffc actions=conjunction(1,3/3)",
        "cookie=0x1020000000000, table=24, priority=200,ip actions=conjunction(2,3/3)",
        "cookie=0x1020000000000, table=25, priority=200,ip,reg1=0x3 actions=drop",
        "cookie=0x1020000000000, table=25, priority=200,ip,reg1=0x4 actions=drop",
        "cookie=0x1020000000000, table=15, priority=200,ip,nw_src=10.10.0.3 actions=drop",
        "cookie=0x1020000000000, table=15, priority=200,ip,nw_src=10.10.0.4 actions=drop",
      ]
    `);
  });

  it('named ports resolve per applied-to Pod (one conjunction per resolved port set)', () => {
    const cache = cacheWith([
      k8sPolicy('np', [
        {
          direction: 'In',
          from: { addressGroups: ['ag-clients'] },
          services: [{ protocol: 'TCP', port: 'http' }],
          priority: -1,
          action: 'Allow',
          enableLogging: false,
        },
      ]),
    ]);
    expect(text(cache)).toMatchInlineSnapshot(`
      [
        "cookie=0x1020000000001, table=24, priority=190,conj_id=1,ip actions=set_field:0x1->reg3,ct(commit,table=26,zone=65520,exec(set_field:0x1/0xffffffff->ct_label))",
        "cookie=0x1020000000001, table=26, priority=200,ct_state=+new+trk,ip,reg3=0x1 actions=goto_table:27",
        "cookie=0x1020000000001, table=26, priority=200,ct_state=-new+trk,ct_label=0x1/0xffffffff,ip actions=goto_table:27",
        "cookie=0x1020000000002, table=24, priority=190,conj_id=2,ip actions=set_field:0x2->reg3,ct(commit,table=26,zone=65520,exec(set_field:0x2/0xffffffff->ct_label))",
        "cookie=0x1020000000002, table=26, priority=200,ct_state=+new+trk,ip,reg3=0x2 actions=goto_table:27",
        "cookie=0x1020000000002, table=26, priority=200,ct_state=-new+trk,ct_label=0x2/0xffffffff,ip actions=goto_table:27",
        "cookie=0x1020000000000, table=24, priority=200,ip,nw_src=10.10.1.8/31 actions=conjunction(1,1/3),conjunction(2,1/3)",
        "cookie=0x1020000000000, table=24, priority=200,ip,reg1=0x3 actions=conjunction(1,2/3)",
        "cookie=0x1020000000000, table=24, priority=200,tcp,tp_dst=8080 actions=conjunction(1,3/3)",
        "cookie=0x1020000000000, table=24, priority=200,ip,reg1=0x4 actions=conjunction(2,2/3)",
        "cookie=0x1020000000000, table=24, priority=200,tcp,tp_dst=9090 actions=conjunction(2,3/3)",
        "cookie=0x1020000000000, table=25, priority=200,ip,reg1=0x3 actions=drop",
        "cookie=0x1020000000000, table=25, priority=200,ip,reg1=0x4 actions=drop",
      ]
    `);
  });

  it('Antrea-native: tiers, priorities and actions in rule order; baseline after K8s', () => {
    const acnp = (
      name: string,
      tierPriority: number,
      priority: number,
      rules: NetworkPolicy['rules'],
    ): NetworkPolicy => ({
      metadata: { name, generation: 2 },
      rules,
      appliedToGroups: ['atg-db'],
      tierPriority,
      priority,
      sourceRef: { type: 'AntreaClusterNetworkPolicy', name, uid: name },
    });
    const rule = (action: 'Allow' | 'Drop' | 'Reject' | 'Pass', i: number, port?: number) => ({
      direction: 'In' as const,
      from: { addressGroups: ['ag-clients'] },
      ...(port ? { services: [{ protocol: 'TCP' as const, port }] } : {}),
      priority: i,
      action,
      enableLogging: false,
    });
    const cache = cacheWith([
      acnp('app', 250, 5, [rule('Allow', 0, 443), rule('Drop', 1)]),
      acnp('secops', 100, 1, [rule('Pass', 0, 22), rule('Reject', 1, 23)]),
      acnp('base', 253, 1, [rule('Drop', 0)]),
    ]);
    expect(text(cache)).toMatchInlineSnapshot(`
      [
        "cookie=0x1020000000001, table=23, priority=63998,conj_id=1,ip actions=set_field:0x1->reg3,ct(commit,table=26,zone=65520,exec(set_field:0x1/0xffffffff->ct_label))",
        "cookie=0x1020000000001, table=26, priority=200,ct_state=+new+trk,ip,reg3=0x1 actions=goto_table:27",
        "cookie=0x1020000000001, table=26, priority=200,ct_state=-new+trk,ct_label=0x1/0xffffffff,ip actions=goto_table:27",
        "cookie=0x1020000000002, table=23, priority=63997,conj_id=2,ip actions=set_field:0x2->reg3,set_field:0x400/0x400->reg0,goto_table:26",
        "cookie=0x1020000000002, table=26, priority=200,ip,reg0=0x400/0x400,reg3=0x2 actions=drop",
        "cookie=0x1020000000003, table=25, priority=180,conj_id=3,ip actions=set_field:0x3->reg3,set_field:0x400/0x400->reg0,goto_table:26",
        "cookie=0x1020000000003, table=26, priority=200,ip,reg0=0x400/0x400,reg3=0x3 actions=drop",
        "cookie=0x1020000000004, table=23, priority=64000,conj_id=4,ip actions=goto_table:24",
        "cookie=0x1020000000005, table=23, priority=63999,conj_id=5,ip actions=set_field:0x5->reg3,set_field:0x400/0x400->reg0,controller(userdata=01),goto_table:26",
        "cookie=0x1020000000005, table=26, priority=200,ip,reg0=0x400/0x400,reg3=0x5 actions=drop",
        "cookie=0x1020000000000, table=23, priority=63998,ip,nw_src=10.10.1.8/31 actions=conjunction(1,1/3)",
        "cookie=0x1020000000000, table=23, priority=63998,ip,reg1=0x5 actions=conjunction(1,2/3)",
        "cookie=0x1020000000000, table=23, priority=63998,tcp,tp_dst=443 actions=conjunction(1,3/3)",
        "cookie=0x1020000000000, table=23, priority=63997,ip,nw_src=10.10.1.8/31 actions=conjunction(2,1/3)",
        "cookie=0x1020000000000, table=23, priority=63997,ip,reg1=0x5 actions=conjunction(2,2/3)",
        "cookie=0x1020000000000, table=23, priority=63997,ip actions=conjunction(2,3/3)",
        "cookie=0x1020000000000, table=25, priority=180,ip,nw_src=10.10.1.8/31 actions=conjunction(3,1/3)",
        "cookie=0x1020000000000, table=25, priority=180,ip,reg1=0x5 actions=conjunction(3,2/3)",
        "cookie=0x1020000000000, table=25, priority=180,ip actions=conjunction(3,3/3)",
        "cookie=0x1020000000000, table=23, priority=64000,ip,nw_src=10.10.1.8/31 actions=conjunction(4,1/3)",
        "cookie=0x1020000000000, table=23, priority=64000,ip,reg1=0x5 actions=conjunction(4,2/3)",
        "cookie=0x1020000000000, table=23, priority=64000,tcp,tp_dst=22 actions=conjunction(4,3/3)",
        "cookie=0x1020000000000, table=23, priority=63999,ip,nw_src=10.10.1.8/31 actions=conjunction(5,1/3)",
        "cookie=0x1020000000000, table=23, priority=63999,ip,reg1=0x5 actions=conjunction(5,2/3)",
        "cookie=0x1020000000000, table=23, priority=63999,tcp,tp_dst=23 actions=conjunction(5,3/3)",
      ]
    `);
  });

  it('flows per rule grow as |from| + |to| + |ports| + 1, never as a product', () => {
    const policy = (n: number) =>
      cacheWith(
        [
          k8sPolicy('np', [
            {
              direction: 'In',
              from: { addressGroups: ['ag-clients'] },
              services: [
                { protocol: 'TCP', port: 80 },
                { protocol: 'TCP', port: 81 },
                { protocol: 'UDP', port: 53 },
              ],
              priority: -1,
              action: 'Allow',
              enableLogging: false,
            },
          ]),
        ],
        n,
      );
    const count = (n: number) => {
      const c = computePolicyFlows(policy(n).rules(), new ConjIdAllocator());
      return conjunctionFlows(ctx, c.conjunctions).length;
    };
    // Peers are 10.10.1.8, 10.10.1.9 (one /31) plus n scattered /32s... collapsed where adjacent:
    // 10.20.0.0 .. 10.20.0.(n-1) collapse too, so use the worst case via distinct counts instead.
    const base = count(0);
    // 1 peer CIDR + 2 applied-to ofports + 3 services + 1 action + 2 metric
    expect(base).toBe(1 + 2 + 3 + 1 + 2);
    // 300 more peer addresses collapse into a handful of CIDRs; never 300 * 2 * 3.
    expect(count(300)).toBeLessThan(base + 10);
  });

  it('established and related packets bypass the rule tables', () => {
    expect(policyBaseFlows(ctx).map((f) => formatFlow(f))).toMatchInlineSnapshot(`
      [
        "cookie=0x1020000000000, table=13, priority=64990,ct_state=-new+est+trk,ip actions=goto_table:16",
        "cookie=0x1020000000000, table=13, priority=64990,ct_state=-new+rel+trk,ip actions=goto_table:16",
        "cookie=0x1020000000000, table=23, priority=64990,ct_state=-new+est+trk,ip actions=goto_table:26",
        "cookie=0x1020000000000, table=23, priority=64990,ct_state=-new+rel+trk,ip actions=goto_table:26",
      ]
    `);
  });
});

describe('toServices peers', () => {
  const groups: Record<string, number[]> = { 'ns/svc-a': [0x11, 0x12], 'ns/svc-b': [0x21] };
  const serviceGroupIds = (keys: readonly string[]) => keys.flatMap((k) => groups[k] ?? []);
  const egress = (
    i: number,
    action: 'Allow' | 'Drop',
    to: NonNullable<NetworkPolicy['rules']>[number]['to'],
    services?: NonNullable<NetworkPolicy['rules']>[number]['services'],
  ) => ({
    direction: 'Out' as const,
    to,
    ...(services ? { services } : {}),
    priority: i,
    action,
    enableLogging: false,
  });
  const acnp = (rules: NetworkPolicy['rules']): NetworkPolicy => ({
    metadata: { name: 'svc', generation: 1 },
    rules,
    appliedToGroups: ['atg-db'],
    tierPriority: 250,
    priority: 1,
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'svc', uid: 'svc' },
  });
  const flows = (cache: RuleCache, ids = serviceGroupIds) =>
    conjunctionFlows(
      ctx,
      computePolicyFlows(cache.rules(), new ConjIdAllocator(), { serviceGroupIds: ids }).conjunctions,
    ).map((f) => formatFlow(f));

  it("match the proxier's group ids in reg7, in the same clause as the rule's addresses; an unknown Service adds nothing", () => {
    const cache = cacheWith([
      acnp([
        egress(0, 'Allow', {
          toServices: [
            { namespace: 'ns', name: 'svc-a' },
            { namespace: 'ns', name: 'gone' },
          ],
        }),
        egress(1, 'Allow', {
          toServices: [{ namespace: 'ns', name: 'svc-b' }],
          ipBlocks: [{ cidr: net('192.168.0.0/24') }],
        }),
        egress(2, 'Drop', { toServices: [{ namespace: 'ns', name: 'gone' }] }),
      ]),
    ]);
    expect(flows(cache)).toMatchInlineSnapshot(`
      [
        "cookie=0x1020000000001, table=13, priority=64000,conj_id=1,ip actions=set_field:0x1->reg3,ct(commit,table=16,zone=65520,exec(set_field:0x100000000/0xffffffff00000000->ct_label))",
        "cookie=0x1020000000001, table=16, priority=200,ct_state=+new+trk,ip,reg3=0x1 actions=goto_table:17",
        "cookie=0x1020000000001, table=16, priority=200,ct_state=-new+trk,ct_label=0x100000000/0xffffffff00000000,ip actions=goto_table:17",
        "cookie=0x1020000000002, table=13, priority=63999,conj_id=2,ip actions=set_field:0x2->reg3,ct(commit,table=16,zone=65520,exec(set_field:0x200000000/0xffffffff00000000->ct_label))",
        "cookie=0x1020000000002, table=16, priority=200,ct_state=+new+trk,ip,reg3=0x2 actions=goto_table:17",
        "cookie=0x1020000000002, table=16, priority=200,ct_state=-new+trk,ct_label=0x200000000/0xffffffff00000000,ip actions=goto_table:17",
        "cookie=0x1020000000000, table=13, priority=64000,ip,reg7=0x11 actions=conjunction(1,1/3)",
        "cookie=0x1020000000000, table=13, priority=64000,ip,reg7=0x12 actions=conjunction(1,1/3)",
        "cookie=0x1020000000000, table=13, priority=64000,ip,nw_src=10.10.0.5 actions=conjunction(1,2/3)",
        "cookie=0x1020000000000, table=13, priority=64000,ip actions=conjunction(1,3/3)",
        "cookie=0x1020000000000, table=13, priority=63999,ip,nw_dst=192.168.0.0/24 actions=conjunction(2,1/3)",
        "cookie=0x1020000000000, table=13, priority=63999,ip,reg7=0x21 actions=conjunction(2,1/3)",
        "cookie=0x1020000000000, table=13, priority=63999,ip,nw_src=10.10.0.5 actions=conjunction(2,2/3)",
        "cookie=0x1020000000000, table=13, priority=63999,ip actions=conjunction(2,3/3)",
      ]
    `);
  });

  it('select nothing without AntreaProxy, and follow the ids when they change', () => {
    const cache = cacheWith([
      acnp([egress(0, 'Allow', { toServices: [{ namespace: 'ns', name: 'svc-a' }] })]),
    ]);
    const computed = computePolicyFlows(cache.rules(), new ConjIdAllocator());
    expect(computed.conjunctions).toEqual([]);
    expect(computed.realized[0]!.conjIds).toEqual([]);
    const later = flows(cache, (keys) => (keys.includes('ns/svc-a') ? [0x99] : []));
    expect(later.filter((f) => f.includes('reg7'))).toEqual([
      'cookie=0x1020000000000, table=13, priority=64000,ip,reg7=0x99 actions=conjunction(1,1/3)',
    ]);
  });

  it("keep a rule's numeric ports and drop its named ones, as for ipBlocks (the Service's Pods are not known here)", () => {
    const cache = cacheWith([
      acnp([
        egress(0, 'Allow', { toServices: [{ namespace: 'ns', name: 'svc-b' }] }, [
          { protocol: 'TCP', port: 80 },
          { protocol: 'TCP', port: 'http' },
        ]),
      ]),
    ]);
    const text = flows(cache);
    expect(text.filter((f) => f.includes('reg7=0x21'))).toHaveLength(1);
    expect(text.filter((f) => f.includes('tp_dst'))).toEqual([
      'cookie=0x1020000000000, table=13, priority=64000,tcp,tp_dst=80 actions=conjunction(1,3/3)',
    ]);
  });
});

describe('FQDN peers', () => {
  const rule = (services?: NonNullable<NetworkPolicy['rules']>[number]['services']) => ({
    direction: 'Out' as const,
    to: { fqdns: ['*.example.com'] },
    ...(services ? { services } : {}),
    priority: 0,
    action: 'Allow' as const,
    enableLogging: false,
  });
  const acnp = (services?: NonNullable<NetworkPolicy['rules']>[number]['services']): NetworkPolicy => ({
    metadata: { name: 'fqdn', generation: 1 },
    rules: [rule(services)],
    appliedToGroups: ['atg-db'],
    tierPriority: 250,
    priority: 1,
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'fqdn', uid: 'fqdn' },
  });
  const peerFlows = (cache: RuleCache, addresses: readonly string[]) =>
    conjunctionFlows(
      ctx,
      computePolicyFlows(cache.rules(), new ConjIdAllocator(), {
        fqdnAddresses: (patterns) => (patterns.includes('*.example.com') ? addresses : []),
      }).conjunctions,
    )
      .map((f) => formatFlow(f))
      .filter((f) => f.includes('nw_dst') || f.includes('tp_dst'));

  it('match the addresses the cache holds now, merged like ipBlocks; none: no flows', () => {
    const cache = cacheWith([acnp()]);
    expect(peerFlows(cache, [])).toEqual([]);
    expect(peerFlows(cache, ['198.51.100.6', '198.51.100.7', '203.0.113.1'])).toEqual([
      'cookie=0x1020000000000, table=13, priority=64000,ip,nw_dst=198.51.100.6/31 actions=conjunction(1,1/3)',
      'cookie=0x1020000000000, table=13, priority=64000,ip,nw_dst=203.0.113.1 actions=conjunction(1,1/3)',
    ]);
  });

  it("keep a rule's numeric ports and drop its named ones (no Pods behind the addresses)", () => {
    const cache = cacheWith([
      acnp([
        { protocol: 'TCP', port: 443 },
        { protocol: 'TCP', port: 'https' },
      ]),
    ]);
    expect(peerFlows(cache, ['203.0.113.1'])).toEqual([
      'cookie=0x1020000000000, table=13, priority=64000,ip,nw_dst=203.0.113.1 actions=conjunction(1,1/3)',
      'cookie=0x1020000000000, table=13, priority=64000,tcp,tp_dst=443 actions=conjunction(1,3/3)',
    ]);
  });
});

describe('resolveServices', () => {
  const member: GroupMember = {
    ip: '10.10.0.3',
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'http', port: 8080, protocol: 'TCP' },
    ],
  } as GroupMember;

  it('matches a named port of a policy with a protocol only on that protocol', () => {
    expect(resolveServices([{ protocol: 'TCP', port: 'dns' }], member)).toEqual([]);
    expect(resolveServices([{ protocol: 'UDP', port: 'dns' }], member)).toEqual([
      { svc: { protocol: 'UDP', port: 'dns' }, port: 53 },
    ]);
  });

  it("gives an AdminNetworkPolicy's protocol-less named port the Pod port's protocol", () => {
    expect(resolveServices([{ port: 'dns' }, { port: 'http' }, { port: 'none' }], member)).toEqual([
      { svc: { port: 'dns', protocol: 'UDP' }, port: 53 },
      { svc: { port: 'http', protocol: 'TCP' }, port: 8080 },
    ]);
  });
});
