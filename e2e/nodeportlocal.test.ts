// NodePortLocal end to end on the lab (instance 30: lab30-*, its own state dir): a 2-Node lab with
// the real antrea-controller, antrea-agents (nodePortLocal.enable in their antrea-agent.conf) and
// userspace OVS. Server Pods on both Nodes behind a Service annotated
// nodeportlocal.antrea.io/enabled; this test process, in the root netns on the lab's underlay, is the
// external host: it reads each Pod's nodeportlocal.antrea.io annotation and opens real TCP
// connections and sends real UDP datagrams to NodeIP:nodePort, and the Pod's server answers with
// its own name.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { tcpAnswer as tcpId, udpAnswer } from './framework/outside-client.js';

const ROOT = join(import.meta.dirname, '..');
const STATE_DIR = '/var/run/antrea-ts-lab-e2e-30';
const options = e2eLabOptions(30);
const N1 = 'lab30-node-1';
const N2 = 'lab30-node-2';
const NS = 'npl';
const HTTP = 80;
const DNS = 5353;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

interface Member {
  podPort: number;
  nodeIP: string;
  nodePort: number;
  protocol: string;
  ipFamily: string;
}

/** The id in the answer to one UDP "ping", or 'timeout'. */
function udpId(host: string, port: number): Promise<string> {
  const nonce = Math.random().toString(36).slice(2);
  return udpAnswer(host, port, `ping ${nonce}`, (text) => {
    const [pong, n, id] = text.split(' ');
    return pong === 'pong' && n === nonce ? (id ?? '') : undefined;
  });
}

describe.skipIf(!isRoot)('NodePortLocal on the lab', () => {
  let lab: Lab;
  const nodeIp: Record<string, string> = {};

  const annotation = async (pod: string): Promise<Member[] | undefined> => {
    const text = await lab.kubectl([
      'get',
      'pod',
      pod,
      '-n',
      NS,
      '-o',
      'jsonpath={.metadata.annotations.nodeportlocal\\.antrea\\.io}',
    ]);
    return text.trim() ? (JSON.parse(text) as Member[]) : undefined;
  };
  const chain = async (node: string): Promise<string[]> => {
    const { stdout } = await exec('ip', ['netns', 'exec', node, 'iptables', '-w', '5', '-t', 'nat', '-S']);
    return stdout.split('\n').filter((l) => l.includes('ANTREA-NODE-PORT-LOCAL'));
  };
  const dnat = (lines: string[]) => lines.filter((l) => l.includes('DNAT'));
  /** Waits for the Pod's annotation to have `count` members and returns it sorted by protocol. */
  const annotated = async (pod: string, count: number): Promise<Member[]> => {
    let got: Member[] | undefined;
    await poll(
      `${pod}'s annotation with ${count} members`,
      async () => {
        got = await annotation(pod);
        return got?.length === count;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    return [...got!].sort((a, b) => a.protocol.localeCompare(b.protocol));
  };
  const service = (annotations: Record<string, string>) =>
    lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', namespace: NS, annotations },
        spec: {
          selector: { app: 'web' },
          ports: [
            { name: 'http', port: 8080, targetPort: HTTP, protocol: 'TCP' },
            { name: 'dns', port: 53, targetPort: DNS, protocol: 'UDP' },
          ],
        },
      }),
    });
  const ports = [
    { port: HTTP, protocol: 'TCP' as const },
    { port: DNS, protocol: 'UDP' as const },
  ];

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    // NodePortLocal is off by default (as in Antrea): turn it on in each Node's antrea-agent.conf.
    for (const node of [N1, N2]) {
      await lab.configureAgent(node, 'nodePortLocal:\n  enable: true\n  portRange: 61000-62000\n');
      nodeIp[node] = lab.node(node).nodeIp;
    }
    // s0 takes Node 1's first port and goes before the restart case, so that a restarted agent that
    // forgot its mappings would hand s1 a different port.
    await lab.createPod({ namespace: NS, name: 's0', node: N1, labels: { app: 'web' }, ports });
    await service({ 'nodeportlocal.antrea.io/enabled': 'true' });
    await annotated('s0', 2);
    await lab.createPod({ namespace: NS, name: 's1', node: N1, labels: { app: 'web' }, ports });
    await lab.createPod({ namespace: NS, name: 's2', node: N2, labels: { app: 'web' }, ports });
    await lab.createPod({ namespace: NS, name: 'other', node: N2, labels: { app: 'db' }, ports });
  }, 300_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it("publishes each Pod's mappings in Antrea's annotation and TCP and UDP to NodeIP:nodePort reach that Pod", async () => {
    for (const [pod, node] of [
      ['s1', N1],
      ['s2', N2],
    ] as const) {
      const [tcp, udp] = await annotated(pod, 2);
      expect(tcp).toMatchObject({ podPort: HTTP, nodeIP: nodeIp[node], protocol: 'tcp', ipFamily: 'IPv4' });
      expect(udp).toMatchObject({ podPort: DNS, nodeIP: nodeIp[node], protocol: 'udp', ipFamily: 'IPv4' });
      for (const m of [tcp!, udp!]) {
        expect(m.nodePort).toBeGreaterThanOrEqual(61000);
        expect(m.nodePort).toBeLessThanOrEqual(62000);
      }
      await poll(
        `TCP ${node}:${tcp!.nodePort} to reach ${pod}`,
        async () => (await tcpId(nodeIp[node]!, tcp!.nodePort)) === `${NS}/${pod}`,
        {
          timeoutMs: 30_000,
          intervalMs: 500,
        },
      );
      for (let i = 0; i < 5; i++) expect(await tcpId(nodeIp[node]!, tcp!.nodePort)).toBe(`${NS}/${pod}`);
      for (let i = 0; i < 3; i++) expect(await udpId(nodeIp[node]!, udp!.nodePort)).toBe(`${NS}/${pod}`);
    }
    // The Pod the Service does not select has no mapping.
    expect(await annotation('other')).toBeUndefined();
    // Each Node's chain holds exactly its own Pods' rules, jumped to from PREROUTING and OUTPUT.
    const n1 = await chain(N1);
    expect(n1).toEqual(
      expect.arrayContaining([
        '-A PREROUTING -m addrtype --dst-type LOCAL -j ANTREA-NODE-PORT-LOCAL',
        '-A OUTPUT -m addrtype --dst-type LOCAL -j ANTREA-NODE-PORT-LOCAL',
      ]),
    );
    expect(dnat(n1)).toHaveLength(4);
    expect(dnat(await chain(N2))).toHaveLength(2);
  }, 180_000);

  it('an agent restart keeps the same ports and the traffic flows', async () => {
    const before = await annotated('s1', 2);
    await lab.deletePod(NS, 's0');
    await poll('s0 rules gone from Node 1', async () => dnat(await chain(N1)).length === 2, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const rulesBefore = dnat(await chain(N1));
    await lab.restart(`antrea-agent@${N1}`);
    // A Pod created after the restart is synced after the agent's first pass over the Pods: once
    // it is annotated, s1 has been handled. An agent that forgot its mappings would have given s1
    // the ports s0 left (the search starts at the range's start again).
    await lab.createPod({ namespace: NS, name: 's3', node: N1, labels: { app: 'web' }, ports });
    await annotated('s3', 2);
    expect(await annotated('s1', 2)).toEqual(before);
    expect(dnat(await chain(N1))).toEqual(expect.arrayContaining(rulesBefore));
    expect(dnat(await chain(N1))).toHaveLength(4);
    expect(await tcpId(nodeIp[N1]!, before[0]!.nodePort)).toBe(`${NS}/s1`);
    expect(await udpId(nodeIp[N1]!, before[1]!.nodePort)).toBe(`${NS}/s1`);
  }, 180_000);

  it('removing the Service annotation removes the rules and the Pod annotations; the ports refuse', async () => {
    const s2 = await annotated('s2', 2);
    await service({});
    for (const pod of ['s1', 's2', 's3']) {
      await poll(`${pod}'s annotation removed`, async () => (await annotation(pod)) === undefined, {
        timeoutMs: 60_000,
        intervalMs: 500,
      });
    }
    expect(dnat(await chain(N1))).toEqual([]);
    expect(dnat(await chain(N2))).toEqual([]);
    // Nothing maps or holds the port any more: the Node's own stack refuses it.
    expect(await tcpId(nodeIp[N2]!, s2[0]!.nodePort)).toBe('ECONNREFUSED');
  }, 120_000);

  it('an agent restarted with nodePortLocal.enable false removes the chain and its jumps', async () => {
    await service({ 'nodeportlocal.antrea.io/enabled': 'true' });
    await annotated('s2', 2);
    expect(dnat(await chain(N2))).toHaveLength(2);
    const conf = join(STATE_DIR, 'nodes', N2, 'antrea-agent.conf');
    writeFileSync(conf, readFileSync(conf, 'utf8').replace('  enable: true', '  enable: false'));
    await lab.restart(`antrea-agent@${N2}`);
    // The agent removes the chain before it reports ready.
    expect(await chain(N2)).toEqual([]);
    // Node 1 keeps serving its mappings.
    const [tcp] = await annotated('s1', 2);
    expect(await tcpId(nodeIp[N1]!, tcp!.nodePort)).toBe(`${NS}/s1`);
  }, 120_000);
});
