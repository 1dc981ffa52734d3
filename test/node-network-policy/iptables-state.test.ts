import {
  ANTREA_INPUT_CHAIN,
  EGRESS_RULES_CHAIN,
  ExecCommandRunner,
  INGRESS_RULES_CHAIN,
  NodePolicyIptables,
  RuleCache,
  ruleChainName,
} from '@antrea-ts/agent';
import type { NetworkPolicy } from '@antrea-ts/apis';
import { createNetns, NET_PREFIX, type Netns, uniqueTag } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// NodeNetworkPolicy's iptables state on real iptables (nf_tables backend) in a private netns: the
// chains and jumps prepare() sets up, the rules sync() writes from the agent's rule cache (a
// policy applied to this Node through an AppliedToGroup with a Node member), an agent restart
// (a new instance's prepare) that keeps the previous rules until its first sync, a stale per-rule
// chain removed, and cleanup() (gate off) removing everything it wrote and nothing else: a
// foreign rule in INPUT and a foreign chain stay.

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NODE = 'node-1';
const FOREIGN_RULE = '-A INPUT -p tcp -m tcp --dport 9 -j ACCEPT';
const v4 = (s: string) => Uint8Array.from(s.split('.').map(Number));

let ns: Netns;
let runner: ExecCommandRunner;
const save = async () =>
  (await ns.exec(['iptables', '-w', '5', '-t', 'filter', '-S'])).split('\n').filter(Boolean);
const chain = async (name: string) => (await save()).filter((l) => l.startsWith(`-A ${name} `));

/** A cache holding one ACNP applied to NODE: rule 0 allows SSH from 10.0.0.0/24 and ICMP, rule 1 drops SSH from two Nodes. */
function cacheWith(rules: 'both' | 'drop-only'): RuleCache {
  const cache = new RuleCache();
  const policy: NetworkPolicy = {
    metadata: { name: 'uid-1', generation: 1 },
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'lock-ssh', uid: 'uid-1' },
    tierPriority: 250,
    priority: 5,
    appliedToGroups: ['atg-nodes'],
    rules: [
      ...(rules === 'both'
        ? [
            {
              direction: 'In' as const,
              name: 'allow-admin',
              priority: 0,
              action: 'Allow' as const,
              enableLogging: false,
              from: { ipBlocks: [{ cidr: { ip: v4('10.0.0.0'), prefixLength: 24 } }] },
              services: [{ protocol: 'TCP' as const, port: 22 }, { protocol: 'ICMP' as const }],
            },
          ]
        : []),
      {
        direction: 'In' as const,
        name: 'drop-nodes',
        priority: 1,
        action: 'Drop' as const,
        enableLogging: false,
        from: { addressGroups: ['ag-nodes'] },
        services: [{ protocol: 'TCP' as const, port: 22 }],
      },
    ],
  } as NetworkPolicy;
  cache.replacePolicies([policy]);
  cache.replaceGroups('appliedtogroups', [
    { metadata: { name: 'atg-nodes' }, groupMembers: [{ node: { name: NODE } }] },
  ]);
  cache.replaceGroups('addressgroups', [
    {
      metadata: { name: 'ag-nodes' },
      groupMembers: [
        { node: { name: 'node-2' }, ips: [v4('192.168.0.2')] },
        { node: { name: 'node-3' }, ips: [v4('192.168.0.5')] },
      ],
    },
  ]);
  return cache;
}
const nodeRules = (cache: RuleCache) => cache.rules().filter((r) => r.appliedToNodes.includes(NODE));

beforeAll(async () => {
  ns = await createNetns(`${NET_PREFIX}-${uniqueTag()}-nnp`);
  runner = new ExecCommandRunner(ns.name);
  await ns.exec(['iptables', '-w', '5', ...FOREIGN_RULE.split(' ')]);
  await ns.exec(['iptables', '-w', '5', '-N', 'OTHER-FEATURE']);
});

afterAll(async () => {
  await ns?.delete();
});

describe('NodeNetworkPolicy iptables state', () => {
  const both = cacheWith('both');
  const multiServiceChain = ruleChainName(nodeRules(both)[0]!.id);

  it('prepare() writes the static chains and the jumps once; sync() writes the rules in priority order', async () => {
    const first = new NodePolicyIptables(runner, logger);
    await first.prepare();
    await first.prepare();
    const rules = await save();
    expect(rules.filter((l) => l.includes(`-j ${ANTREA_INPUT_CHAIN}`))).toEqual([
      '-A INPUT -m comment --comment "Antrea: jump to Antrea input rules" -j ANTREA-INPUT',
    ]);
    expect(rules.filter((l) => l.includes('-j ANTREA-OUTPUT'))).toHaveLength(1);
    expect(await chain('ANTREA-POL-PRE-INGRESS-RULES')).toEqual([
      '-A ANTREA-POL-PRE-INGRESS-RULES -m conntrack --ctstate RELATED,ESTABLISHED -m comment --comment "Antrea: allow ingress established or related packets" -j ACCEPT',
      '-A ANTREA-POL-PRE-INGRESS-RULES -i lo -m comment --comment "Antrea: allow ingress packets from loopback" -j ACCEPT',
    ]);
    expect(await chain(INGRESS_RULES_CHAIN)).toEqual([]);

    expect(nodeRules(both)).toHaveLength(2);
    await first.sync(nodeRules(both));
    expect(await chain(INGRESS_RULES_CHAIN)).toEqual([
      `-A ${INGRESS_RULES_CHAIN} -s 10.0.0.0/24 -m comment --comment "Antrea: for rule allow-admin, policy AntreaClusterNetworkPolicy:lock-ssh" -j ${multiServiceChain}`,
      `-A ${INGRESS_RULES_CHAIN} -s 192.168.0.2/32 -p tcp -m tcp --dport 22 -m comment --comment "Antrea: for rule drop-nodes, policy AntreaClusterNetworkPolicy:lock-ssh" -j DROP`,
      `-A ${INGRESS_RULES_CHAIN} -s 192.168.0.5/32 -p tcp -m tcp --dport 22 -m comment --comment "Antrea: for rule drop-nodes, policy AntreaClusterNetworkPolicy:lock-ssh" -j DROP`,
    ]);
    expect(await chain(multiServiceChain)).toEqual([
      `-A ${multiServiceChain} -p tcp -m tcp --dport 22 -j ACCEPT`,
      `-A ${multiServiceChain} -p icmp -j ACCEPT`,
    ]);
    expect(await chain(EGRESS_RULES_CHAIN)).toEqual([]);
  });

  it('a restarted agent keeps the rules until its first sync, which removes a stale rule chain', async () => {
    const before = await save();
    const restarted = new NodePolicyIptables(runner, logger);
    await restarted.prepare();
    expect(await save()).toEqual(before);
    await restarted.sync(nodeRules(cacheWith('drop-only')));
    const after = await save();
    expect(after.some((l) => l.includes(multiServiceChain))).toBe(false);
    expect(await chain(INGRESS_RULES_CHAIN)).toHaveLength(2);
    // A policy no longer applied to this Node (its AppliedToGroup lost the Node): no rules.
    const gone = cacheWith('drop-only');
    gone.replaceGroups('appliedtogroups', [{ metadata: { name: 'atg-nodes' }, groupMembers: [] }]);
    await restarted.sync(nodeRules(gone));
    expect(await chain(INGRESS_RULES_CHAIN)).toEqual([]);
  });

  it('cleanup() removes the jumps and every chain it wrote, and leaves foreign rules and chains', async () => {
    const agent = new NodePolicyIptables(runner, logger);
    await agent.prepare();
    await agent.sync(nodeRules(both));
    await agent.cleanup();
    await agent.cleanup();
    const rules = await save();
    expect(rules.filter((l) => l.includes('ANTREA'))).toEqual([]);
    expect(rules).toEqual(expect.arrayContaining([FOREIGN_RULE, '-N OTHER-FEATURE']));
  });
});
