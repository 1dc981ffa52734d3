// NodeNetworkPolicy rules into real iptables (nf_tables backend) in a private netns: one policy
// applied to this Node whose ingress rule drops TCP 22 from N peer addresses (no ipset here: one
// iptables rule per CIDR; addresses spaced so none merge). Measures the first sync (all rules in
// one iptables-restore), a sync after one peer changed (the whole chain rewritten), and an
// unchanged sync (no command run).
//   tsc -b test && node dist/test/node-network-policy/bench-node-rules.js [--json] [--peers 100,1000,5000] [--rounds 5]
import { ExecCommandRunner, NodePolicyIptables, RuleCache } from '@antrea-ts/agent';
import type { NetworkPolicy } from '@antrea-ts/apis';
import { BenchReport, createNetns, NET_PREFIX, uniqueTag } from '@antrea-ts/harness';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const peerCounts = arg('--peers', '100,1000,5000').split(',').map(Number);
const rounds = Number(arg('--rounds', '5'));
const NODE = 'node-1';
const report = new BenchReport('node-network-policy', json);

/** Peer i as 10.x.y.z with a gap after each, so no two peers collapse into one CIDR. */
const peerIp = (i: number, shift: number) => {
  const n = (10 << 24) + (i + shift) * 2;
  return Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
};

function cache(peers: number, shift: number): RuleCache {
  const c = new RuleCache();
  c.replacePolicies([
    {
      metadata: { name: 'p', generation: 1 },
      sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'p', uid: 'p' },
      tierPriority: 250,
      priority: 1,
      appliedToGroups: ['atg'],
      rules: [
        {
          direction: 'In',
          name: 'drop-ssh',
          priority: 0,
          action: 'Drop',
          enableLogging: false,
          from: { addressGroups: ['ag'] },
          services: [{ protocol: 'TCP', port: 22 }],
        },
      ],
    } as NetworkPolicy,
  ]);
  c.replaceGroups('appliedtogroups', [
    { metadata: { name: 'atg' }, groupMembers: [{ node: { name: NODE } }] },
  ]);
  c.replaceGroups('addressgroups', [
    {
      metadata: { name: 'ag' },
      groupMembers: Array.from({ length: peers }, (_, i) => ({ ips: [peerIp(i, i === 0 ? shift : 0)] })),
    },
  ]);
  return c;
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const ns = await createNetns(`${NET_PREFIX}-${uniqueTag()}-nnb`);
try {
  const runner = new ExecCommandRunner(ns.name);
  for (const peers of peerCounts) {
    const first: number[] = [];
    const change: number[] = [];
    const same: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const rules = new NodePolicyIptables(runner, pino({ level: 'silent' }));
      await rules.prepare();
      const a = cache(peers, 0).rules();
      const b = cache(peers, peers * 3 + r).rules();
      let t = process.hrtime.bigint();
      await rules.sync(a);
      first.push(ms(t));
      t = process.hrtime.bigint();
      await rules.sync(b);
      change.push(ms(t));
      t = process.hrtime.bigint();
      await rules.sync(b);
      same.push(ms(t));
      await rules.cleanup();
    }
    const points = { p50: 50, max: 100 };
    report.recordPercentiles(`${peers} peers: first sync`, first, points, 'ms');
    report.recordPercentiles(`${peers} peers: one peer changed`, change, points, 'ms');
    report.recordPercentiles(`${peers} peers: unchanged`, same, points, 'ms');
  }
} finally {
  await ns.delete();
  report.finish(`NodeNetworkPolicy: N peer addresses to iptables rules (${rounds} rounds each)`);
}
