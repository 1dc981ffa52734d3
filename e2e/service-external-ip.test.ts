// ServiceExternalIP on the lab (instance 38: lab38-*, lb38*, its own state dir): 2 Nodes with the real
// antrea-controller and antrea-agents, both with featureGates.ServiceExternalIP and the agents with
// antreaProxy.proxyAll (no kube-proxy), userspace OVS. An ExternalIPPool on the underlay subnet and a
// LoadBalancer Service annotated with it: the controller writes a pool IP into its ingress, one agent
// answers ARP for it on the underlay and names itself in the ingress hostname, and this test process
// (in the root netns, on the underlay: the client outside the cluster) connects to the IP and reaches
// both endpoints. The holder turning NotReady moves the IP to the other Node (its ARP answer and the
// hostname); an externalTrafficPolicy Local Service's IP lives on its endpoint's Node; an agent
// started with the gate off removes its entry; deleting the Service frees the IP
// in the pool and on the Nodes.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll, run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { tcpAnswer } from './framework/outside-client.js';

const ROOT = join(import.meta.dirname, '..');
const INSTANCE = 38;
const options = e2eLabOptions(INSTANCE);
const N1 = `lab${INSTANCE}-node-1`;
const N2 = `lab${INSTANCE}-node-2`;
const NS = 'sx';
const BASE = `198.19.${INSTANCE}`;
const POOL_IPS = [`${BASE}.200`, `${BASE}.201`];
const AGENT_CONF = 'antreaProxy:\n  proxyAll: true\nfeatureGates:\n  ServiceExternalIP: true\n';
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/** TCP 8081: "<pod> <client address>". */
const SERVER = String.raw`
const [id] = process.argv.slice(1);
require('node:net').createServer((s) => { s.on('error', () => {}); s.end(id + ' ' + String(s.remoteAddress).replace(/^::ffff:/, '') + '\n'); }).listen(8081, () => console.log('ready'));
`;

const poolYaml = `apiVersion: crd.antrea.io/v1beta1
kind: ExternalIPPool
metadata:
  name: lb-pool
spec:
  ipRanges:
    - start: ${POOL_IPS[0]}
      end: ${POOL_IPS[1]}
  nodeSelector: {}
`;
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: NS, annotations: { 'service.antrea.io/external-ip-pool': 'lb-pool' } },
  spec: {
    type: 'LoadBalancer',
    selector: { web: 'yes' },
    ports: [{ port: 80, targetPort: 8081, protocol: 'TCP' }],
  },
};

describe.skipIf(!isRoot)('ServiceExternalIP on the lab', () => {
  let lab: Lab;
  const servers: ChildProcess[] = [];

  const ingress = async (name: string): Promise<{ ip?: string; hostname?: string }> =>
    JSON.parse(
      (await lab.kubectl([
        'get',
        'service',
        name,
        '-n',
        NS,
        '-o',
        'jsonpath={.status.loadBalancer.ingress[0]}',
      ])) || '{}',
    );
  /** The ingress once it has an IP and a holder (optionally another holder than `not`). */
  const held = (not?: string, name = 'web') =>
    poll(
      `${name}'s external IP held`,
      async () => {
        const i = await ingress(name);
        return i.ip && i.hostname && i.hostname !== not ? { ip: i.ip, node: i.hostname } : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  const usage = async () =>
    JSON.parse(await lab.kubectl(['get', 'externalippool', 'lb-pool', '-o', 'jsonpath={.status.usage}']));
  /** The proxy ARP entries on a Node (every interface). */
  const proxyEntries = async (node: string) =>
    (await run(['ip', '-4', 'neigh', 'show', 'proxy'], { netns: lab.node(node).netns }))
      .split('\n')
      .map((l) => l.split(' ')[0])
      .filter((ip) => ip);
  /** The MAC of the Node's interface on the underlay (the one holding its Node IP). */
  const underlayMac = async (node: string) => {
    const links = JSON.parse(
      await run(['ip', '-j', 'addr', 'show'], { netns: lab.node(node).netns }),
    ) as Array<{
      address: string;
      addr_info: Array<{ local: string }>;
    }>;
    return links.find((l) => l.addr_info.some((a) => a.local === lab.node(node).nodeIp))?.address;
  };
  /** Forgets this host's ARP entry for `ip` and reads the MAC that answers it now. */
  const arpAnswer = async (ip: string) => {
    await exec('ip', ['neigh', 'flush', 'to', ip]).catch(() => undefined);
    await tcpAnswer(ip, 80, 2_000);
    const entries = JSON.parse((await exec('ip', ['-j', 'neigh', 'show', 'to', ip])).stdout) as Array<{
      lladdr?: string;
    }>;
    return entries[0]?.lladdr;
  };
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
  const answered = (a: string) => /^s[12] /.test(a);
  /** Answers of `n` connections from outside, once one answers. */
  const answers = async (ip: string, n: number) => {
    await poll('answer from outside', async () => answered(await tcpAnswer(ip, 80)) || undefined, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(await tcpAnswer(ip, 80));
    return out;
  };

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2, controllerFeatureGates: { ServiceExternalIP: true } });
    for (const node of [N1, N2]) {
      await lab.configureAgent(node, AGENT_CONF);
    }
    await lab.kubectl(['create', 'namespace', NS]);
    for (const [pod, node] of [
      ['s1', N1],
      ['s2', N2],
    ] as const) {
      await lab.createPod({ namespace: NS, name: pod, node, labels: { web: 'yes', app: pod } });
      const [file, ...args] = lab.execArgv(NS, pod, ['node', '-e', SERVER, pod]);
      servers.push(spawn(file!, args, { stdio: 'ignore' }));
    }
    await lab.kubectl(['apply', '-f', '-'], { input: poolYaml });
  }, 400_000);

  afterAll(async () => {
    for (const s of servers) s.kill();
    for (const ip of POOL_IPS) await exec('ip', ['neigh', 'flush', 'to', ip]).catch(() => undefined);
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('a LoadBalancer Service annotated with a pool gets a pool IP, held by one Node', async () => {
    await lab.kubectl(['apply', '-f', '-'], { input: JSON.stringify(service) });
    const { ip, node } = await held();
    expect(POOL_IPS).toContain(ip);
    expect([N1, N2]).toContain(node);
    await poll('pool usage', async () => (await usage())?.used === 1 || undefined, { timeoutMs: 30_000 });
    expect(await usage()).toEqual({ total: 2, used: 1 });
    await poll(
      'proxy ARP entry on the holder',
      async () => (await proxyEntries(node)).includes(ip) || undefined,
      {
        timeoutMs: 30_000,
      },
    );
    expect(await proxyEntries(node === N1 ? N2 : N1)).toEqual([]);
  }, 120_000);

  it('a client outside the cluster reaches both endpoints through the IP, answered by the holder', async () => {
    const { ip, node } = await held();
    const got = await answers(ip, 12);
    expect(new Set(got.map((a) => a.split(' ')[0])), got.join(', ')).toEqual(new Set(['s1', 's2']));
    expect(await arpAnswer(ip)).toBe(await underlayMac(node));
  }, 120_000);

  it('moves the IP to the other Node when its Node turns NotReady, and the client follows', async () => {
    const before = await held();
    const other = before.node === N1 ? N2 : N1;
    await setReady(before.node, 'False');
    try {
      const after = await held(before.node);
      expect(after).toEqual({ ip: before.ip, node: other });
      await poll('entry moved', async () => (await proxyEntries(other)).includes(after.ip) || undefined, {
        timeoutMs: 30_000,
      });
      await poll(
        'old holder released',
        async () => (await proxyEntries(before.node)).length === 0 || undefined,
        {
          timeoutMs: 30_000,
        },
      );
      // No gratuitous ARP: a client asking again (its entry expired) gets the new holder.
      expect(await arpAnswer(after.ip)).toBe(await underlayMac(other));
      const got = await answers(after.ip, 12);
      expect(new Set(got.map((a) => a.split(' ')[0])), got.join(', ')).toEqual(new Set(['s1', 's2']));
    } finally {
      await setReady(before.node, 'True');
    }
  }, 180_000);

  it('externalTrafficPolicy Local: the IP lives on the Node with the endpoint, which keeps the client address', async () => {
    const web = await held();
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        ...service,
        metadata: { ...service.metadata, name: 'local' },
        spec: { ...service.spec, selector: { app: 's2' }, externalTrafficPolicy: 'Local' },
      }),
    });
    const local = await held(undefined, 'local');
    expect(local.node).toBe(N2);
    expect(local.ip).not.toBe(web.ip);
    const got = await answers(local.ip, 6);
    expect(new Set(got), got.join(', ')).toEqual(new Set([`s2 ${lab.layout.hostIp}`]));
    await lab.kubectl(['delete', 'service', 'local', '-n', NS]);
    await poll('local released', async () => !(await proxyEntries(N2)).includes(local.ip) || undefined, {
      timeoutMs: 30_000,
    });
    await poll('pool usage back to 1', async () => (await usage())?.used === 1 || undefined, {
      timeoutMs: 30_000,
    });
  }, 180_000);

  it('an agent started with the gate off removes its entry; on again, it answers for the IP again', async () => {
    const { ip, node } = await held();
    const conf = join(lab.layout.nodeDir(node), 'antrea-agent.conf');
    const on = readFileSync(conf, 'utf8');
    writeFileSync(conf, on.replace('ServiceExternalIP: true', 'ServiceExternalIP: false'));
    try {
      await lab.restart(`antrea-agent@${node}`);
      await poll('entry removed', async () => (await proxyEntries(node)).length === 0 || undefined, {
        timeoutMs: 60_000,
      });
    } finally {
      writeFileSync(conf, on);
    }
    await lab.restart(`antrea-agent@${node}`);
    await poll('entry back', async () => (await proxyEntries(node)).includes(ip) || undefined, {
      timeoutMs: 60_000,
    });
    expect((await answers(ip, 4)).every(answered)).toBe(true);
  }, 180_000);

  it('deleting the Service frees the IP in the pool and on the Nodes', async () => {
    const { ip } = await held();
    await lab.kubectl(['delete', 'service', 'web', '-n', NS]);
    await poll('pool usage 0', async () => (await usage())?.used === 0 || undefined, { timeoutMs: 30_000 });
    for (const node of [N1, N2]) {
      await poll(`no entry on ${node}`, async () => (await proxyEntries(node)).length === 0 || undefined, {
        timeoutMs: 30_000,
      });
    }
    expect(await tcpAnswer(ip, 80, 2_000)).not.toMatch(/^s[12] /);
  }, 120_000);
});
