// Egress on the lab (instance 28: lab28-*, lb28*, its own state dir): 2 Nodes with the real
// antrea-controller, antrea-agents (featureGates.Egress on by default) and userspace OVS. A TCP server in the
// root namespace on an underlay address (an external host) answers each connection with the peer
// address it sees. An ExternalIPPool on the underlay subnet and an Egress for the `client` Pods:
// their connections must arrive from the Egress IP, from the Egress Node's Pod and, through the
// tunnel, from the other Node's; an unselected Pod still arrives as its Node IP (masquerade);
// deleting the Egress restores the Node IP; the Egress Node turning NotReady, or reaching its
// max-egress-ips, moves the IP; egress.exceptCIDRs bypass it; an agent restarted with the gate off
// leaves no Egress IP, chain or flow behind; a selected Pod answering a client from outside replies on
// the path the client came in (replies skip EgressMark).

import { execFile, spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Egress } from '@antrea-ts/apis';
import { poll, run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { settle } from './framework/settle.js';

const ROOT = join(import.meta.dirname, '..');
const INSTANCE = 28;
const options = e2eLabOptions(INSTANCE);
const NODE1 = `lab${INSTANCE}-node-1`;
const NODE2 = `lab${INSTANCE}-node-2`;
const NS = 'eg';
const BASE = `198.19.${INSTANCE}`;
const SERVER_IP = `${BASE}.250`;
/** A second external address, in the agents' egress.exceptCIDRs. */
const EXCEPT_IP = `${BASE}.251`;
const PORT = 8080;
const POOL_IPS = [`${BASE}.200`, `${BASE}.201`];
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/** Run in a Pod's netns: connects to IP:PORT and prints what the server says (the peer it saw). */
const CLIENT = `
const net = require('node:net');
const s = net.connect({ host: process.argv[1], port: ${PORT} });
let out = '';
const t = setTimeout(() => { console.log('timeout'); process.exit(0); }, 5000);
s.on('data', (d) => { out += d; });
s.on('end', () => { clearTimeout(t); console.log(out.trim()); });
s.on('error', (e) => { clearTimeout(t); console.log(e.code); });
`;

const poolYaml = `apiVersion: crd.antrea.io/v1beta1
kind: ExternalIPPool
metadata:
  name: underlay-pool
spec:
  ipRanges:
    - start: ${POOL_IPS[0]}
      end: ${POOL_IPS[1]}
  nodeSelector: {}
`;
const egressYaml = `apiVersion: crd.antrea.io/v1beta1
kind: Egress
metadata:
  name: egress-client
spec:
  appliedTo:
    podSelector:
      matchLabels:
        app: client
  externalIPPool: underlay-pool
`;

describe.skipIf(!isRoot)('Egress on the lab', () => {
  let lab: Lab;
  const servers: Server[] = [];

  const peerSeenFrom = async (pod: string, server = SERVER_IP): Promise<string> =>
    (await lab.exec(NS, pod, ['node', '-e', CLIENT, server], { timeoutMs: 20_000 })).trim();
  const egress = async (): Promise<Egress> =>
    JSON.parse(await lab.kubectl(['get', 'egress', 'egress-client', '-o', 'json'])) as Egress;
  const nodeIp = (node: string) => lab.node(node).nodeIp;
  /** The Egress's status once an agent reported it (optionally on another Node than `not`). */
  const assigned = (not?: string) =>
    poll(
      'Egress assigned',
      async () => {
        const s = (await egress()).status;
        const ok = s?.egressNode && s.egressIP && s.egressNode !== not;
        return ok ? { node: s.egressNode as string, ip: s.egressIP as string } : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  /** What the server sees from `pod`, once it is `want` (SNAT follows the agents' syncs). */
  const seenAs = async (pod: string, want: string): Promise<string> =>
    poll('peer address', async () => ((await peerSeenFrom(pod)) === want ? want : undefined), {
      timeoutMs: 60_000,
      intervalMs: 1000,
    }).catch(async () => peerSeenFrom(pod));

  const poolUsage = async () =>
    JSON.parse(await lab.kubectl(['get', 'externalippool', 'underlay-pool', '-o', 'json'])).status?.usage;
  /**
   * Whether `node` has `ip` on an interface, once that is `want`: agents add and remove Egress IPs
   * on their own syncs, after the status a test waited for.
   */
  const holds = async (node: string, ip: string, want: boolean): Promise<boolean> =>
    settle(
      async () =>
        (await run(['ip', '-o', '-4', 'addr', 'show'], { netns: lab.node(node).netns })).includes(
          ` ${ip}/32`,
        ),
      want,
    );

  /** What a kubelet would report: the Node's Ready condition (the lab has no kubelet). */
  const setReady = (node: string, status: 'True' | 'False') =>
    lab.kubectl([
      'patch',
      'node',
      node,
      '--subresource=status',
      '--type=strategic',
      '-p',
      JSON.stringify({ status: { conditions: [{ type: 'Ready', status, reason: 'Test' }] } }),
    ]);

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    // Egress is on by default; one destination bypasses it (Antrea's egress.exceptCIDRs).
    for (const node of [NODE1, NODE2]) {
      appendFileSync(
        join(lab.layout.nodeDir(node), 'antrea-agent.conf'),
        `egress:\n  exceptCIDRs: [${EXCEPT_IP}/32]\n`,
      );
      await lab.restart(`antrea-agent@${node}`);
    }
    for (const ip of [SERVER_IP, EXCEPT_IP]) {
      await run(['ip', 'addr', 'add', `${ip}/32`, 'dev', lab.layout.underlayBridge]);
      const server = createServer((s) => {
        s.on('error', () => {});
        s.end(`${s.remoteAddress?.replace(/^::ffff:/, '')}\n`);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(PORT, ip, resolve));
    }
    await lab.createPod({ namespace: NS, name: 'client-1', node: NODE1, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 'client-2', node: NODE2, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 'other-1', node: NODE1, labels: { app: 'other' } });
    await lab.createPod({ namespace: NS, name: 'other-2', node: NODE2, labels: { app: 'other' } });
  }, 400_000);

  afterAll(async () => {
    for (const server of servers) server.close();
    for (const ip of [SERVER_IP, EXCEPT_IP]) {
      await run(['ip', 'addr', 'del', `${ip}/32`, 'dev', `lb${INSTANCE}-underlay`]).catch(() => undefined);
    }
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('without an Egress, Pods reach the external host masqueraded as their Node IP', async () => {
    expect(await peerSeenFrom('client-1')).toBe(nodeIp(NODE1));
    expect(await peerSeenFrom('client-2')).toBe(nodeIp(NODE2));
  });

  it('with an Egress, selected Pods on both Nodes arrive from the Egress IP; others keep their Node IP', async () => {
    await lab.kubectl(['apply', '-f', '-'], { input: poolYaml });
    await lab.kubectl(['apply', '-f', '-'], { input: egressYaml });
    const { node, ip } = await assigned();
    expect(POOL_IPS).toContain(ip);
    expect((await egress()).spec.egressIP).toBe(ip);
    const conditions = ['IPAllocated=True', 'IPAssigned=True'];
    const egressConditions = async () =>
      (await egress()).status?.conditions?.map((c) => `${c.type}=${c.status}`).sort();
    expect(await settle(egressConditions, conditions)).toEqual(conditions);
    expect(await seenAs('client-1', ip)).toBe(ip);
    expect(await seenAs('client-2', ip)).toBe(ip);
    expect(await peerSeenFrom('other-1')).toBe(nodeIp(NODE1));
    expect(await peerSeenFrom('other-2')).toBe(nodeIp(NODE2));
    // The controller counts the pool's usage apart from the agent's status report.
    expect(await settle(poolUsage, { total: 2, used: 1 })).toEqual({ total: 2, used: 1 });
    // The IP sits on the Egress Node's transport interface only.
    expect(await holds(node, ip, true)).toBe(true);
    expect(await holds(node === NODE1 ? NODE2 : NODE1, ip, false)).toBe(false);
  }, 180_000);

  it('a selected Pod answers a client from outside on the path the client came in, not through the Egress IP', async () => {
    const { node } = await assigned();
    const other = node === NODE1 ? NODE2 : NODE1;
    // A server Pod of the Egress on the Node without the IP, reached by its Pod IP routed through
    // that Node from the root namespace: its replies must go back through its own Node's gateway.
    const pod = await lab.createPod({
      namespace: NS,
      name: 'server',
      node: other,
      labels: { app: 'client' },
      ports: [{ port: 8081, protocol: 'TCP' }],
    });
    const podIp = pod.ips[0] as string;
    await run(['ip', 'route', 'replace', `${podIp}/32`, 'via', nodeIp(other)]);
    try {
      const answer = await exec(process.execPath, [
        '-e',
        `const s = require('net').connect({ host: '${podIp}', port: 8081 }); let o = '';
         const t = setTimeout(() => { console.log('timeout'); process.exit(0); }, 5000);
         s.on('data', (d) => { o += d; }); s.on('end', () => { clearTimeout(t); console.log(o.trim()); });
         s.on('error', (e) => { clearTimeout(t); console.log(e.code); });`,
      ]);
      expect(answer.stdout.trim()).toBe(`${NS}/server`);
    } finally {
      await run(['ip', 'route', 'del', `${podIp}/32`]).catch(() => undefined);
      await lab.deletePod(NS, 'server');
    }
  }, 120_000);

  it('traffic to a Node IP does not go through the Egress Node', async () => {
    const { node } = await assigned();
    const other = node === NODE1 ? NODE2 : NODE1;
    const client = other === NODE1 ? 'client-1' : 'client-2';
    // A server on the Egress Node's own IP, in its netns, reporting the peer it sees.
    const nodeServer = spawn(
      'ip',
      [
        'netns',
        'exec',
        lab.node(node).netns,
        process.execPath,
        '-e',
        `require('net').createServer((s) => { s.on('error', () => {}); s.end(s.remoteAddress + '\\n'); }).listen(${PORT}, '${nodeIp(node)}', () => console.log('up'))`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      await new Promise<void>((resolve) => nodeServer.stdout.once('data', () => resolve()));
      // Through the Egress Node the packet would reach its host unSNATed, from the Pod IP; skipped,
      // it leaves the client's Node masqueraded as that Node's IP.
      const seen = (
        await lab.exec(NS, client, ['node', '-e', CLIENT, nodeIp(node)], { timeoutMs: 20_000 })
      ).trim();
      expect(seen).toBe(nodeIp(other));
    } finally {
      nodeServer.kill();
    }
  }, 60_000);

  it("destinations in egress.exceptCIDRs are reached from the Pod's own Node, without the Egress IP", async () => {
    const { ip } = await assigned();
    expect(await seenAs('client-1', ip)).toBe(ip);
    expect(await peerSeenFrom('client-1', EXCEPT_IP)).toBe(nodeIp(NODE1));
    expect(await peerSeenFrom('client-2', EXCEPT_IP)).toBe(nodeIp(NODE2));
  }, 60_000);

  /**
   * `leave` makes the Egress Node unfit: the IP moves to the other Node (and off the old one), both
   * clients arrive from it; `comeBack` undoes it: the Egress returns to its Node (its name hashes there).
   */
  const movesAwayAndBack = async (
    leave: (node: string) => Promise<unknown>,
    comeBack: (node: string) => Promise<unknown>,
  ) => {
    const before = await assigned();
    const other = before.node === NODE1 ? NODE2 : NODE1;
    await leave(before.node);
    try {
      expect(await assigned(before.node)).toEqual({ node: other, ip: before.ip });
      // No gratuitous ARP is sent (see packages/agent/README.md): the external host forgets the old owner.
      await run(['ip', 'neigh', 'flush', 'to', before.ip]);
      expect(await seenAs('client-1', before.ip)).toBe(before.ip);
      expect(await seenAs('client-2', before.ip)).toBe(before.ip);
      // The old Node's agent lets go of the IP on its own sync, after the new one reported it.
      expect(await holds(before.node, before.ip, false)).toBe(false);
    } finally {
      await comeBack(before.node);
    }
    await poll(
      'Egress back on its Node',
      async () => ((await egress()).status?.egressNode === before.node ? true : undefined),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await run(['ip', 'neigh', 'flush', 'to', before.ip]);
    expect(await seenAs('client-1', before.ip)).toBe(before.ip);
  };

  it('moves the Egress IP off a Node whose node.antrea.io/max-egress-ips it would exceed', async () => {
    await movesAwayAndBack(
      (node) => lab.kubectl(['annotate', 'node', node, 'node.antrea.io/max-egress-ips=0']),
      (node) => lab.kubectl(['annotate', 'node', node, 'node.antrea.io/max-egress-ips-']),
    );
  }, 180_000);

  it('moves the Egress IP when the Egress Node turns NotReady', async () => {
    await movesAwayAndBack(
      (node) => setReady(node, 'False'),
      (node) => setReady(node, 'True'),
    );
  }, 180_000);

  it('keeps SNATing through an agent crash on the Egress Node', async () => {
    const { node, ip } = await assigned();
    // Connections made while the agent is down, starting and cleaning up the previous run's flows
    // (until 3 s after it is healthy) all leave from the Egress IP: no gap.
    const samples: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      for (let i = 0; sampling; i++) samples.push(await peerSeenFrom(i % 2 === 0 ? 'client-1' : 'client-2'));
    })();
    try {
      await lab.restart(`antrea-agent@${node}`, { crash: true });
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      sampling = false;
      await sampler;
    }
    expect(samples.length).toBeGreaterThan(1);
    expect(samples.filter((s) => s !== ip)).toEqual([]);
    expect(await seenAs('client-1', ip)).toBe(ip);
    expect(await seenAs('client-2', ip)).toBe(ip);
    expect((await assigned()).node).toBe(node);
  }, 180_000);

  it('a static egressIP lives on the Node that has it; Pods of both Nodes leave from it', async () => {
    const staticIp = `${BASE}.210`;
    const holder = lab.node(NODE1);
    await run(['ip', 'addr', 'add', `${staticIp}/32`, 'dev', 'br-phy'], { netns: holder.netns });
    try {
      await lab.kubectl(['apply', '-f', '-'], {
        input: `apiVersion: crd.antrea.io/v1beta1
kind: Egress
metadata:
  name: egress-static
spec:
  appliedTo:
    podSelector:
      matchLabels:
        app: other
  egressIP: ${staticIp}
`,
      });
      await poll(
        'static Egress assigned',
        async () => {
          const e = JSON.parse(await lab.kubectl(['get', 'egress', 'egress-static', '-o', 'json'])) as Egress;
          return e.status?.egressNode === NODE1 && e.status.egressIP === staticIp ? true : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(await seenAs('other-1', staticIp)).toBe(staticIp);
      expect(await seenAs('other-2', staticIp)).toBe(staticIp);
      await lab.kubectl(['delete', 'egress', 'egress-static']);
      expect(await seenAs('other-2', nodeIp(NODE2))).toBe(nodeIp(NODE2));
      // Not a pool address: the agent leaves it where the user put it.
      const held = await run(['ip', '-o', '-4', 'addr', 'show'], { netns: holder.netns });
      expect(held).toContain(` ${staticIp}/32`);
    } finally {
      await run(['ip', 'addr', 'del', `${staticIp}/32`, 'dev', 'br-phy'], { netns: holder.netns }).catch(
        () => undefined,
      );
    }
  }, 180_000);

  it('reports AssignmentError when no Ready Node is selected by the pool', async () => {
    await lab.kubectl(['apply', '-f', '-'], {
      input: `apiVersion: crd.antrea.io/v1beta1
kind: ExternalIPPool
metadata:
  name: nowhere-pool
spec:
  ipRanges:
    - start: ${BASE}.220
      end: ${BASE}.220
  nodeSelector:
    matchLabels:
      network-role: egress-gateway
---
apiVersion: crd.antrea.io/v1beta1
kind: Egress
metadata:
  name: egress-nowhere
spec:
  appliedTo:
    podSelector:
      matchLabels:
        app: nothing
  externalIPPool: nowhere-pool
`,
    });
    try {
      const status = await poll(
        'AssignmentError',
        async () => {
          const e = JSON.parse(
            await lab.kubectl(['get', 'egress', 'egress-nowhere', '-o', 'json']),
          ) as Egress;
          return e.status?.conditions?.some((c) => c.type === 'IPAssigned') ? e.status : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(status.egressNode).toBeUndefined();
      expect(status.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`).sort()).toEqual([
        'IPAllocated=True/Allocated',
        'IPAssigned=False/AssignmentError',
      ]);
    } finally {
      await lab.kubectl(['delete', 'egress', 'egress-nowhere']);
      await lab.kubectl(['delete', 'externalippool', 'nowhere-pool']);
    }
  }, 120_000);

  it('an agent restarted with Egress off leaves no Egress IP, chain or flow; on again, it takes the IP back', async () => {
    const { node, ip } = await assigned();
    const conf = join(lab.layout.nodeDir(node), 'antrea-agent.conf');
    const original = readFileSync(conf, 'utf8');
    const netns = lab.node(node).netns;
    const iptablesSave = () => run(['iptables-save'], { netns });
    expect(await iptablesSave()).toContain('ANTREA-EGRESS');
    writeFileSync(conf, `${original}featureGates:\n  Egress: false\n`);
    try {
      await lab.restart(`antrea-agent@${node}`);
      expect(await run(['ip', '-o', '-4', 'addr', 'show'], { netns })).not.toContain(` ${ip}/32`);
      expect(await iptablesSave()).not.toContain('ANTREA-EGRESS');
      // The previous run's EgressMark flows (the Egress source MACs) went with its round.
      await poll(
        'no Egress flows',
        async () =>
          (await lab.brIntOfctl(node, ['--no-stats', 'dump-flows'])).includes('aa:bb:cc:dd:ef:')
            ? undefined
            : true,
        { timeoutMs: 30_000, intervalMs: 500 },
      );
    } finally {
      writeFileSync(conf, original);
      await lab.restart(`antrea-agent@${node}`);
    }
    // Ready does not wait for Egress (its start does not): the IP comes back on its first sync.
    expect(await holds(node, ip, true)).toBe(true);
    await run(['ip', 'neigh', 'flush', 'to', ip]);
    expect(await seenAs('client-1', ip)).toBe(ip);
  }, 180_000);

  it('deleting the Egress restores the Node IP and releases the pool IP', async () => {
    await lab.kubectl(['delete', 'egress', 'egress-client']);
    expect(await seenAs('client-1', nodeIp(NODE1))).toBe(nodeIp(NODE1));
    expect(await seenAs('client-2', nodeIp(NODE2))).toBe(nodeIp(NODE2));
    await poll(
      'pool released',
      async () =>
        JSON.parse(await lab.kubectl(['get', 'externalippool', 'underlay-pool', '-o', 'json'])).status?.usage
          ?.used === 0 || undefined,
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    for (const n of [NODE1, NODE2]) for (const ip of POOL_IPS) expect(await holds(n, ip, false)).toBe(false);
  }, 120_000);
});
