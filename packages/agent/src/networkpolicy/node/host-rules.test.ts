import type { GroupMember, NetworkPolicy, NetworkPolicyRule } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { CompletedRule } from '../rule-cache.js';
import {
  EGRESS_RULES_CHAIN,
  filterRestoreInput,
  hostRuleOf,
  INGRESS_RULES_CHAIN,
  logPrefixOf,
  policyChainRules,
  ruleChainName,
  serviceMatch,
  staticChainRules,
} from './host-rules.js';

const v4 = (s: string) => Uint8Array.from(s.split('.').map(Number));
const net = (cidr: string) => {
  const [ip, len] = cidr.split('/');
  return { ip: v4(ip!), prefixLength: Number(len) };
};
const nodeMember = (name: string, ip: string): GroupMember => ({ node: { name }, ips: [v4(ip)] });

function rule(
  policy: { name: string; tier?: number; priority?: number },
  r: Partial<NetworkPolicyRule> & { direction: 'In' | 'Out' },
  peer: { members?: GroupMember[]; cidrs?: string[] } = {},
  index = 0,
): CompletedRule {
  const np: NetworkPolicy = {
    metadata: { name: policy.name },
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: policy.name, uid: policy.name },
    tierPriority: policy.tier ?? 250,
    priority: policy.priority ?? 5,
  } as NetworkPolicy;
  const full: NetworkPolicyRule = { priority: index, enableLogging: false, action: 'Drop', ...r };
  return {
    id: `${policy.name}/${r.direction}/${index}`,
    policy: np,
    rule: full,
    index,
    direction: r.direction,
    action: full.action!,
    k8s: false,
    peer: {
      ipBlocks: (peer.cidrs ?? []).map((c) => ({ cidr: net(c) })),
      members: peer.members ?? [],
      fqdns: [],
      toServices: [],
      none: false,
    },
    appliedTo: [],
    appliedToNodes: ['n1'],
    services: full.services ?? [],
  };
}

const chains = (...rules: CompletedRule[]) => policyChainRules(rules.flatMap((r) => hostRuleOf(r) ?? []));

describe('NodeNetworkPolicy rule builder', () => {
  it('matches one source address directly, with the service and the action target', () => {
    const c = chains(
      rule(
        { name: 'ssh' },
        { direction: 'In', name: 'drop-ssh', services: [{ protocol: 'TCP', port: 22 }] },
        { cidrs: ['10.10.0.0/16'] },
      ),
    );
    expect(c.get(INGRESS_RULES_CHAIN)).toEqual([
      '-s 10.10.0.0/16 -p tcp --dport 22 -m comment --comment "Antrea: for rule drop-ssh, policy AntreaClusterNetworkPolicy:ssh" -j DROP',
    ]);
    expect(c.get(EGRESS_RULES_CHAIN)).toEqual([]);
  });

  it('writes one rule per CIDR (no ipset), Node peers as /32, excepts expanded, egress by destination', () => {
    const c = chains(
      rule(
        { name: 'out' },
        {
          direction: 'Out',
          name: 'r',
          action: 'Reject',
          services: [{ protocol: 'UDP', port: 53, endPort: 60 }],
        },
        { members: [nodeMember('n1', '192.168.0.1'), nodeMember('n2', '192.168.0.3')] },
      ),
    );
    expect(c.get(EGRESS_RULES_CHAIN)!.map((l) => l.replace(/ -m comment --comment "[^"]*"/, ''))).toEqual([
      '-d 192.168.0.1/32 -p udp --dport 53:60 -j REJECT',
      '-d 192.168.0.3/32 -p udp --dport 53:60 -j REJECT',
    ]);
    const except = chains(
      rule({ name: 'e' }, { direction: 'In', action: 'Allow' }, { cidrs: [] }),
      rule({ name: 'f' }, { direction: 'In', action: 'Allow' }, { cidrs: [] }),
    );
    // No address at all: nothing can match, so no rule.
    expect(except.get(INGRESS_RULES_CHAIN)).toEqual([]);
    const withExcept = hostRuleOf({
      ...rule({ name: 'x' }, { direction: 'In' }),
      peer: {
        ipBlocks: [{ cidr: net('10.0.0.0/30'), except: [net('10.0.0.1/32')] }],
        members: [],
        fqdns: [],
        toServices: [],
        none: false,
      },
    });
    expect(withExcept?.peerCidrs).toEqual(['10.0.0.0/32', '10.0.0.2/31']);
  });

  it('matches any address without -s when the peer is everything (no from/to)', () => {
    const c = chains(
      rule(
        { name: 'any' },
        { direction: 'In', services: [{ protocol: 'TCP', port: 80 }] },
        { cidrs: ['0.0.0.0/0'] },
      ),
    );
    expect(c.get(INGRESS_RULES_CHAIN)![0]).toMatch(/^-p tcp --dport 80 -m comment/);
  });

  it('orders rules by tier priority, then policy priority, then rule priority', () => {
    const any = { cidrs: ['0.0.0.0/0'] };
    const c = chains(
      rule(
        { name: 'app-late', tier: 250, priority: 10 },
        { direction: 'In', name: 'a0', action: 'Allow' },
        any,
        0,
      ),
      rule(
        { name: 'secops', tier: 50, priority: 99 },
        { direction: 'In', name: 's0', action: 'Drop' },
        any,
        0,
      ),
      rule(
        { name: 'app-early', tier: 250, priority: 1 },
        { direction: 'In', name: 'e1', action: 'Reject' },
        any,
        1,
      ),
      rule(
        { name: 'app-early', tier: 250, priority: 1 },
        { direction: 'In', name: 'e0', action: 'Allow' },
        any,
        0,
      ),
    );
    expect(c.get(INGRESS_RULES_CHAIN)!.map((l) => /for rule (\w+)/.exec(l)![1])).toEqual([
      's0',
      'e0',
      'e1',
      'a0',
    ]);
  });

  it('sends a rule with several services to its own chain, whose rules carry the action', () => {
    const r = rule(
      { name: 'multi' },
      {
        direction: 'In',
        action: 'Allow',
        services: [
          { protocol: 'TCP', port: 22 },
          { protocol: 'ICMP', icmpType: 8, icmpCode: 0 },
        ],
      },
      { cidrs: ['10.0.0.0/24', '10.0.2.0/24'] },
    );
    const c = chains(r);
    const sub = ruleChainName(r.id);
    expect(sub).toMatch(/^ANTREA-POL-[0-9A-F]{16}$/);
    expect(sub.length).toBeLessThanOrEqual(28);
    expect(c.get(sub)).toEqual(['-p tcp --dport 22 -j ACCEPT', '-p icmp --icmp-type 8/0 -j ACCEPT']);
    expect(c.get(INGRESS_RULES_CHAIN)!.map((l) => l.replace(/ -m comment --comment "[^"]*"/, ''))).toEqual([
      `-s 10.0.0.0/24 -j ${sub}`,
      `-s 10.0.2.0/24 -j ${sub}`,
    ]);
  });

  it('logs with Antrea’s prefix before the deciding rule, the label cut to 12 characters', () => {
    expect(logPrefixOf('In', 'Drop', 'default-drop-others')).toBe('Antrea:I:Drop:default-drop:');
    expect(logPrefixOf('Out', 'Allow', undefined)).toBe('Antrea:O:Allow:');
    const c = chains(
      rule(
        { name: 'log' },
        { direction: 'In', enableLogging: true, logLabel: 'ssh', services: [{ protocol: 'TCP', port: 22 }] },
        { cidrs: ['10.0.0.1/32'] },
      ),
    );
    expect(c.get(INGRESS_RULES_CHAIN)![0]).toBe(
      '-s 10.0.0.1/32 -p tcp --dport 22 -j LOG --log-prefix "Antrea:I:Drop:ssh:"',
    );
    expect(c.get(INGRESS_RULES_CHAIN)![1]).toMatch(/-j DROP$/);
  });

  it('leaves out what iptables cannot express on a Node: named ports, IGMP, Pass', () => {
    expect(serviceMatch({ protocol: 'TCP', port: 'http' })).toBeUndefined();
    expect(serviceMatch({ protocol: 'IGMP', igmpType: 0x11 })).toBeUndefined();
    expect(serviceMatch({ protocol: 'SCTP', srcPort: 1000, srcEndPort: 2000, port: 7 })).toBe(
      '-p sctp --sport 1000:2000 --dport 7',
    );
    expect(serviceMatch({ protocol: 'ICMP' })).toBe('-p icmp');
    const named = chains(
      rule(
        { name: 'n' },
        { direction: 'In', services: [{ protocol: 'TCP', port: 'http' }] },
        { cidrs: ['0.0.0.0/0'] },
      ),
    );
    expect(named.get(INGRESS_RULES_CHAIN)).toEqual([]);
    expect(hostRuleOf(rule({ name: 'p' }, { direction: 'In', action: 'Pass' }))).toBeUndefined();
  });

  it('lets Antrea’s own ports in ahead of the policies, then replies and loopback, then the policy rules', () => {
    const input = staticChainRules({ tunnelUdpPort: 6081, agentApiPort: 10350 }).get('ANTREA-INPUT')!;
    expect(input.map((l) => / -j (\S+)$/.exec(l)![1])).toEqual([
      'ACCEPT',
      'ACCEPT',
      'ANTREA-POL-PRE-INGRESS-RULES',
      INGRESS_RULES_CHAIN,
    ]);
    expect(input[0]).toMatch(/^-p udp --dport 6081 /);
    expect(input[1]).toMatch(/^-p tcp --dport 10350 /);
    // Without a tunnel (noEncap) or an API port: only the jumps.
    expect(staticChainRules().get('ANTREA-INPUT')).toHaveLength(2);
  });

  it('restore input declares (flushes) the chains written and deletes the stale ones in one commit', () => {
    const input = filterRestoreInput(
      new Map([
        [INGRESS_RULES_CHAIN, ['-j DROP']],
        [EGRESS_RULES_CHAIN, []],
      ]),
      ['ANTREA-POL-0123456789ABCDEF'],
    );
    expect(input.split('\n')).toEqual([
      '*filter',
      `:${INGRESS_RULES_CHAIN} - [0:0]`,
      `:${EGRESS_RULES_CHAIN} - [0:0]`,
      ':ANTREA-POL-0123456789ABCDEF - [0:0]',
      `-A ${INGRESS_RULES_CHAIN} -j DROP`,
      '-X ANTREA-POL-0123456789ABCDEF',
      'COMMIT',
      '',
    ]);
  });
});
