// NodeNetworkPolicy end to end on the lab (instance 40: lab40-*, its own state dir): a 2-Node lab
// with the real antrea-controller, antrea-agents with featureGates.NodeNetworkPolicy in their
// antrea-agent.conf, userspace OVS. Each Node runs a server in its own (host) network namespace
// on TCP 8022 ("SSH") and 8080; ClusterNetworkPolicies with a nodeSelector appliedTo decide who
// reaches them: this test process (the admin host outside the cluster, on the underlay), a Pod on
// the Node, the other Node. Probes (probe.mjs) classify what a client gets: allow (answered),
// drop (nothing back) or reject (refused).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poll, run } from '@antrea-ts/harness';
import { Lab, type ProbeVerdict } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';

const options = e2eLabOptions(40);
const N1 = 'lab40-node-1';
const N2 = 'lab40-node-2';
const NS = 'nnp';
const SSH = 8022;
const WEB = 8080;
const GATE_CONF = 'featureGates:\n  NodeNetworkPolicy: true\n';
const isRoot = process.getuid?.() === 0;

/** Where a probe starts: this host (outside the cluster), a lab Node's own netns, or a Pod. */
type From = { outside: true } | { node: string } | { pod: string };

const hostname = (node: string) => ({ matchLabels: { 'kubernetes.io/hostname': node } });

describe.skipIf(!isRoot)('NodeNetworkPolicy on the lab', () => {
  let lab: Lab;
  let outsideIp: string;
  const nodeIp: Record<string, string> = {};
  const servers: ChildProcess[] = [];

  const verdict = async (from: From, node: string, port: number): Promise<ProbeVerdict> => {
    const target = { ip: nodeIp[node]!, port, protocol: 'TCP' as const };
    if ('pod' in from)
      return (await lab.probe({ namespace: NS, name: from.pod }, [target], 1_500))[0]!.result;
    const argv = [
      process.execPath,
      options.artifacts.probe,
      '--timeout-ms',
      '1500',
      `tcp:${target.ip}:${port}`,
    ];
    const out = await run(argv, { netns: 'node' in from ? from.node : undefined, timeoutMs: 20_000 });
    return (JSON.parse(out.trim().split('\n')[0]!) as { result: ProbeVerdict }).result;
  };
  /** Waits (policies take a moment to be realized) until `from` gets `want`, then checks it holds. */
  const expectVerdict = async (from: From, node: string, port: number, want: ProbeVerdict) => {
    let last: ProbeVerdict | undefined;
    await poll(
      `${JSON.stringify(from)} -> ${node}:${port} ${want}`,
      async () => {
        last = await verdict(from, node, port);
        return last === want;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch((err: unknown) => {
      throw new Error(`${JSON.stringify(from)} -> ${node}:${port}: wanted ${want}, got ${last}`, {
        cause: err,
      });
    });
    expect(await verdict(from, node, port)).toBe(want);
  };
  const filterRules = async (node: string, chain?: string): Promise<string[]> =>
    (await run(['iptables', '-w', '5', '-t', 'filter', '-S', ...(chain ? [chain] : [])], { netns: node }))
      .split('\n')
      .filter((l) => l.startsWith('-A '));
  const acnp = (name: string, spec: object) =>
    lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name },
        spec: { priority: 5, tier: 'securityops', ...spec },
      }),
    });

  /** Node 1's ingress policy: SSH from the admin host only (others get `sshAction`), web rejected for Node 2. */
  const ingressSpec = (sshAction: 'Drop' | 'Reject') => ({
    appliedTo: [{ nodeSelector: hostname(N1) }],
    ingress: [
      {
        name: 'allow-admin',
        action: 'Allow',
        from: [{ ipBlock: { cidr: `${outsideIp}/32` } }],
        ports: [{ protocol: 'TCP', port: SSH }],
      },
      { name: 'other-ssh', action: sshAction, ports: [{ protocol: 'TCP', port: SSH }] },
      {
        name: 'reject-web',
        action: 'Reject',
        from: [{ nodeSelector: hostname(N2) }],
        ports: [{ protocol: 'TCP', port: WEB }],
      },
    ],
  });

  /** A server on TCP 8022 and 8080 in the Node's own netns (its host network), answering its name. */
  const startHostServer = async (node: string) => {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        node,
        process.execPath,
        options.artifacts.serve,
        '--id',
        `host/${node}`,
        '--tcp',
        `${SSH},${WEB}`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    servers.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`host server on ${node} exited (${code})`)));
      child.stdout!.on('data', (d) => {
        if (String(d).includes('"ready":true')) resolve();
      });
    });
  };

  beforeAll(async () => {
    await run(['npx', 'tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      timeoutMs: 300_000,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    for (const node of [N1, N2]) {
      await lab.configureAgent(node, GATE_CONF);
      nodeIp[node] = lab.node(node).nodeIp;
      await startHostServer(node);
    }
    outsideIp = /src (\S+)/.exec(await run(['ip', '-o', 'route', 'get', nodeIp[N1]!]))![1]!;
    await lab.createPod({ namespace: NS, name: 'c1', node: N1 });
  }, 300_000);

  afterAll(async () => {
    for (const s of servers) s.kill('SIGTERM');
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('writes the jumps and static chains, and no rule while no policy applies', async () => {
    const n1 = await filterRules(N1);
    expect(n1).toEqual(
      expect.arrayContaining([
        '-A INPUT -m comment --comment "Antrea: jump to Antrea input rules" -j ANTREA-INPUT',
        '-A OUTPUT -m comment --comment "Antrea: jump to Antrea output rules" -j ANTREA-OUTPUT',
      ]),
    );
    expect(await filterRules(N1, 'ANTREA-POL-INGRESS-RULES')).toEqual([]);
    for (const from of [{ outside: true } as const, { pod: 'c1' }, { node: N2 }])
      await expectVerdict(from, N1, SSH, 'allow');
  }, 120_000);

  it('ingress: SSH only from the admin host, the web port rejected for the other Node; other Nodes untouched', async () => {
    await acnp('node1-ingress', ingressSpec('Drop'));
    await expectVerdict({ pod: 'c1' }, N1, SSH, 'drop');
    await expectVerdict({ node: N2 }, N1, SSH, 'drop');
    await expectVerdict({ outside: true }, N1, SSH, 'allow');
    await expectVerdict({ node: N2 }, N1, WEB, 'reject');
    await expectVerdict({ outside: true }, N1, WEB, 'allow');
    await expectVerdict({ pod: 'c1' }, N1, WEB, 'allow');
    // Node 2 is not selected: its SSH stays open, its chain empty.
    await expectVerdict({ pod: 'c1' }, N2, SSH, 'allow');
    expect(await filterRules(N2, 'ANTREA-POL-INGRESS-RULES')).toEqual([]);
    const n1 = await filterRules(N1, 'ANTREA-POL-INGRESS-RULES');
    expect(n1.map((l) => / -j (\S+)/.exec(l)![1])).toEqual(['ACCEPT', 'DROP', 'REJECT']);
    expect(n1[2]).toContain(`-s ${nodeIp[N2]}/32`);
  }, 180_000);

  it('egress: what Node 1 itself reaches on Node 2 is limited; Pods on Node 1 are not', async () => {
    await acnp('node1-egress', {
      appliedTo: [{ nodeSelector: hostname(N1) }],
      egress: [
        {
          name: 'drop-ssh-out',
          action: 'Drop',
          to: [{ nodeSelector: hostname(N2) }],
          ports: [{ protocol: 'TCP', port: SSH }],
        },
        {
          name: 'reject-web-out',
          action: 'Reject',
          to: [{ ipBlock: { cidr: `${nodeIp[N2]}/32` } }],
          ports: [{ protocol: 'TCP', port: WEB }],
        },
      ],
    });
    await expectVerdict({ node: N1 }, N2, SSH, 'drop');
    await expectVerdict({ node: N1 }, N2, WEB, 'reject');
    // A Pod's packets are forwarded by the Node, not sent by it: no egress rule of the Node applies.
    await expectVerdict({ pod: 'c1' }, N2, SSH, 'allow');
    // Node 2's own traffic is not limited.
    await expectVerdict({ node: N2 }, N1, WEB, 'reject');
    expect(await filterRules(N2, 'ANTREA-POL-EGRESS-RULES')).toEqual([]);
  }, 180_000);

  it('an agent crash and restart keeps the rules: no probe gets through in between', async () => {
    const before = await filterRules(N1);
    const seen: ProbeVerdict[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) seen.push(await verdict({ pod: 'c1' }, N1, SSH));
    })();
    await lab.restart(`antrea-agent@${N1}`, { crash: true });
    // Probe on for a while past the restart: the new agent's first realization rewrites the same rules.
    await new Promise((r) => setTimeout(r, 3_000));
    probing = false;
    await prober;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((v) => v !== 'drop')).toEqual([]);
    expect(await filterRules(N1)).toEqual(before);
    await expectVerdict({ outside: true }, N1, SSH, 'allow');
    // The restarted agent owns the rules: a policy change is realized.
    await acnp('node1-ingress', ingressSpec('Reject'));
    await expectVerdict({ pod: 'c1' }, N1, SSH, 'reject');
    await expectVerdict({ outside: true }, N1, SSH, 'allow');
  }, 240_000);

  it('a default-deny ingress policy leaves Antrea’s own ports open: the agent API answers from outside', async () => {
    const state = JSON.parse(readFileSync(join(options.stateDir, 'state.json'), 'utf8')) as {
      nodes: { name: string; apiPort: number }[];
    };
    const apiPort = state.nodes.find((n) => n.name === N1)!.apiPort;
    await acnp('node1-deny-all', {
      priority: 10,
      appliedTo: [{ nodeSelector: hostname(N1) }],
      ingress: [{ name: 'deny-all', action: 'Drop' }],
    });
    await expectVerdict({ outside: true }, N1, WEB, 'drop');
    await expectVerdict({ outside: true }, N1, apiPort, 'allow');
    await lab.kubectl(['delete', 'clusternetworkpolicy', 'node1-deny-all']);
    await expectVerdict({ outside: true }, N1, WEB, 'allow');
  }, 180_000);

  it('deleting the policies removes their rules and opens the ports again', async () => {
    await lab.kubectl(['delete', 'clusternetworkpolicy', 'node1-ingress', 'node1-egress']);
    await expectVerdict({ pod: 'c1' }, N1, SSH, 'allow');
    await expectVerdict({ node: N2 }, N1, WEB, 'allow');
    await expectVerdict({ node: N1 }, N2, SSH, 'allow');
    expect(await filterRules(N1, 'ANTREA-POL-INGRESS-RULES')).toEqual([]);
    expect(await filterRules(N1, 'ANTREA-POL-EGRESS-RULES')).toEqual([]);
  }, 180_000);

  it('an agent started with the gate off removes the chains and jumps', async () => {
    const conf = join(options.stateDir, 'nodes', N1, 'antrea-agent.conf');
    writeFileSync(conf, readFileSync(conf, 'utf8').replace(GATE_CONF, ''));
    await lab.restart(`antrea-agent@${N1}`);
    await poll(
      'no ANTREA rule left in Node 1 filter table',
      async () => !(await filterRules(N1)).some((l) => l.includes('ANTREA')),
      {
        timeoutMs: 60_000,
        intervalMs: 500,
      },
    );
    expect((await run(['iptables', '-w', '5', '-t', 'filter', '-S'], { netns: N1 })).includes('ANTREA')).toBe(
      false,
    );
  }, 180_000);
});
