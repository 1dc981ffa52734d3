// AntreaProxy as kube-proxy replacement (antreaProxy.proxyAll) end to end on the lab (instance 31:
// lab31-*, its own state dir): a 2-Node lab with the real antrea-controller, antrea-agents with
// proxyAll in their antrea-agent.conf, userspace OVS, no kube-proxy. This test process, in the root
// netns on the lab's underlay, is the host outside the cluster: it opens real TCP connections and
// sends real UDP datagrams to NodeIP:nodePort of both Nodes, to a LoadBalancer IP and an externalIP
// routed to Node 1, and reads the healthCheckNodePort. The server Pods answer with their name and the
// client address they saw, so the tests see which endpoint answered and whether the source was kept.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { tcpAnswer, udpAnswer } from './framework/outside-client.js';
import { settle } from './framework/settle.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(31);
const STATE_DIR = options.stateDir;
const N1 = 'lab31-node-1';
const N2 = 'lab31-node-2';
const NS = 'pa';
/** Routed to Node 1 from this host; outside every lab range. */
const LB_IP = '172.31.31.10';
const EXTERNAL_IP = '172.31.31.11';
const PROXY_ALL_CONF = 'antreaProxy:\n  proxyAll: true\n';
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/** TCP 8081: "<pod> <client address>"; UDP 8082: "<pod> <client address>" per datagram. */
const PEER_SERVER = String.raw`
const [id] = process.argv.slice(1);
const who = (a) => id + ' ' + String(a).replace(/^::ffff:/, '');
require('node:net').createServer((s) => { s.on('error', () => {}); s.end(who(s.remoteAddress) + '\n'); }).listen(8081);
const u = require('node:dgram').createSocket('udp4');
u.on('message', (_m, r) => u.send(who(r.address) + '\n', r.port, r.address));
u.bind(8082, () => console.log('ready'));
`;

/** The answer to one datagram ("<pod> <client>"), or 'timeout'. */
const udpOnce = (host: string, port: number, timeoutMs = 3_000) =>
  udpAnswer(host, port, 'q', undefined, timeoutMs);

const pods = (answers: string[]) => new Set(answers.map((a) => a.split(' ')[0]));
const both = (answers: string[]) => pods(answers).has('s1') && pods(answers).has('s2');
/** `n` answers of `probe`, one after the other. */
async function samples(n: number, probe: () => Promise<string>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await probe());
  return out;
}

describe.skipIf(!isRoot)('AntreaProxy proxyAll on the lab', () => {
  let lab: Lab;
  const nodeIp: Record<string, string> = {};
  const servers: ChildProcess[] = [];
  const routesAdded: string[] = [];

  const apply = (obj: object) => lab.kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  const svcField = async (name: string, path: string) =>
    (await lab.kubectl(['get', 'service', name, '-n', NS, '-o', `jsonpath=${path}`])).trim();
  const nodePort = async (name: string, proto: 'TCP' | 'UDP') =>
    Number(await svcField(name, `{.spec.ports[?(@.protocol=="${proto}")].nodePort}`));
  const service = (name: string, app: string, spec: object) =>
    apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS },
      spec: {
        selector: { app },
        ports: [
          { name: 'tcp', port: 80, targetPort: 8081, protocol: 'TCP' },
          { name: 'udp', port: 53, targetPort: 8082, protocol: 'UDP' },
        ],
        ...spec,
      },
    });
  const nat = async (node: string) =>
    (await exec('ip', ['netns', 'exec', node, 'iptables-save', '-t', 'nat'])).stdout;
  const nodeRoutes = async (node: string) =>
    (await exec('ip', ['netns', 'exec', node, 'ip', 'route'])).stdout;
  /** Waits until `probe` answers as `want` says (the agents' rules and flows are in). */
  const until = (what: string, probe: () => Promise<string>, want: (a: string) => boolean) =>
    poll(what, async () => want(await probe()), { timeoutMs: 60_000, intervalMs: 500 });
  const answered = (a: string) => a.includes(' ');
  const agentConf = (node: string) => join(STATE_DIR, 'nodes', node, 'antrea-agent.conf');

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    for (const node of [N1, N2]) {
      await lab.configureAgent(node, PROXY_ALL_CONF);
      nodeIp[node] = lab.node(node).nodeIp;
    }
    await lab.kubectl(['create', 'namespace', NS]);
    await lab.createPod({ namespace: NS, name: 'c1', node: N1, labels: { app: 'client' } });
    for (const [pod, node, app] of [
      ['s1', N1, 'one'],
      ['s2', N2, 'two'],
    ] as const) {
      await lab.createPod({ namespace: NS, name: pod, node, labels: { app, web: 'yes' } });
      const [file, ...args] = lab.execArgv(NS, pod, ['node', '-e', PEER_SERVER, pod]);
      servers.push(spawn(file!, args, { stdio: 'ignore' }));
    }
    // web: both Pods, Cluster policy. local: s1 only (Node 1), Local policy, a LoadBalancer.
    await apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: NS },
      spec: {
        type: 'LoadBalancer',
        selector: { web: 'yes' },
        externalIPs: [EXTERNAL_IP],
        ports: [
          { name: 'tcp', port: 80, targetPort: 8081, protocol: 'TCP' },
          { name: 'udp', port: 53, targetPort: 8082, protocol: 'UDP' },
        ],
      },
    });
    // No load balancer controller in the lab: the ingress IP is written as one would.
    await lab.kubectl([
      'patch',
      'service',
      'web',
      '-n',
      NS,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: LB_IP }] } } }),
    ]);
    await service('local', 'one', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
    for (const ip of [LB_IP, EXTERNAL_IP]) {
      await exec('ip', ['route', 'replace', `${ip}/32`, 'via', nodeIp[N1]!]);
      routesAdded.push(ip);
    }
  }, 300_000);

  afterAll(async () => {
    for (const s of servers) s.kill();
    for (const ip of routesAdded) await exec('ip', ['route', 'del', `${ip}/32`]).catch(() => undefined);
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('NodePort from outside on both Nodes reaches the endpoints on the same and the other Node, TCP and UDP', async () => {
    const tcpPort = await nodePort('web', 'TCP');
    const udpPort = await nodePort('web', 'UDP');
    for (const node of [N1, N2]) {
      const ip = nodeIp[node]!;
      await until(`TCP ${node}:${tcpPort}`, () => tcpAnswer(ip, tcpPort), answered);
      // One answer does not say both endpoints are in the groups yet: sample until both answer.
      const tcp = await settle(() => samples(16, () => tcpAnswer(ip, tcpPort)), both);
      expect(pods(tcp), `TCP to ${node}: ${tcp.join(', ')}`).toEqual(new Set(['s1', 's2']));
      const udp = await settle(() => samples(16, () => udpOnce(ip, udpPort)), both);
      expect(pods(udp), `UDP to ${node}: ${udp.join(', ')}`).toEqual(new Set(['s1', 's2']));
    }
    // Cluster policy: the endpoint on the other Node sees that Node's gateway (SNAT, so the reply
    // comes back the way it went); the local one sees the client.
    const n1 = [];
    for (let i = 0; i < 16; i++) n1.push(await tcpAnswer(nodeIp[N1]!, tcpPort));
    expect(n1.filter((a) => a.startsWith('s1 ')).every((a) => a === `s1 ${lab.layout.hostIp}`)).toBe(true);
    expect(
      n1.filter((a) => a.startsWith('s2 ')).every((a) => a.endsWith('.1') && a !== `s2 ${lab.layout.hostIp}`),
    ).toBe(true);
  }, 180_000);

  it('externalTrafficPolicy Local keeps the client address and the Node without an endpoint forwards nothing', async () => {
    const port = await nodePort('local', 'TCP');
    await until(`TCP ${N1}:${port}`, () => tcpAnswer(nodeIp[N1]!, port), answered);
    for (let i = 0; i < 5; i++) expect(await tcpAnswer(nodeIp[N1]!, port)).toBe(`s1 ${lab.layout.hostIp}`);
    expect(await udpOnce(nodeIp[N1]!, await nodePort('local', 'UDP'))).toBe(`s1 ${lab.layout.hostIp}`);
    for (let i = 0; i < 3; i++) expect(await tcpAnswer(nodeIp[N2]!, port, 2_000)).toBe('timeout');
    // Not for Node 2 itself (Antrea treats the Node's traffic as Cluster): its own NodePort reaches
    // s1 on Node 1, SNATed to Node 2's gateway so the reply returns through its OVS.
    const fromN2 = await exec('ip', [
      'netns',
      'exec',
      N2,
      process.execPath,
      '-e',
      TCP_ONCE,
      nodeIp[N2]!,
      String(port),
    ]);
    expect(fromN2.stdout.trim()).toMatch(/^s1 \d+\.\d+\.\d+\.1$/);
    // A Pod still reaches it through its ClusterIP from anywhere.
    const clusterIp = await svcField('local', '{.spec.clusterIP}');
    expect(
      (await lab.exec(NS, 'c1', ['node', '-e', TCP_ONCE, clusterIp, '80'], { timeoutMs: 15_000 })).trim(),
    ).toMatch(/^s1 /);
  }, 120_000);

  it('healthCheckNodePort answers 200 with the local endpoint count on the Node with one, 503 on the other', async () => {
    const port = Number(await svcField('local', '{.spec.healthCheckNodePort}'));
    expect(port).toBeGreaterThan(0);
    let res: Response | undefined;
    await poll(
      'health check on Node 1',
      async () => {
        res = await fetch(`http://${nodeIp[N1]}:${port}/healthz`).catch(() => undefined);
        return res?.status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(await res!.json()).toEqual({
      service: { namespace: NS, name: 'local' },
      localEndpoints: 1,
      serviceProxyHealthy: true,
    });
    const other = await fetch(`http://${nodeIp[N2]}:${port}/healthz`);
    expect(other.status).toBe(503);
    expect(await other.json()).toMatchObject({ localEndpoints: 0 });
  }, 60_000);

  it('LoadBalancer ingress IP and externalIP: from a Pod, and from outside through a route to Node 1', async () => {
    for (const ip of [LB_IP, EXTERNAL_IP]) {
      const fromPod = async () =>
        (await lab.exec(NS, 'c1', ['node', '-e', TCP_ONCE, ip, '80'], { timeoutMs: 15_000 })).trim();
      await until(`${ip}:80 from a Pod`, fromPod, answered);
      await until(`${ip}:80 from outside`, () => tcpAnswer(ip, 80), answered);
      const outside = await settle(() => samples(12, () => tcpAnswer(ip, 80)), both);
      expect(pods(outside), outside.join(', ')).toEqual(new Set(['s1', 's2']));
      expect(await udpOnce(ip, 53)).toMatch(/^s[12] /);
    }
  }, 120_000);

  it('a process in the Node netns reaches a ClusterIP (the Service routes lead into antrea-gw0)', async () => {
    const clusterIp = await svcField('web', '{.spec.clusterIP}');
    const fromNode = async () =>
      (
        await exec('ip', ['netns', 'exec', N1, process.execPath, '-e', TCP_ONCE, clusterIp, '80'])
      ).stdout.trim();
    await until(`${clusterIp}:80 from ${N1}`, fromNode, answered);
    const got = await settle(() => samples(12, fromNode), both);
    expect(pods(got), got.join(', ')).toEqual(new Set(['s1', 's2']));
  }, 60_000);

  it('an agent restart keeps NodePort working without a break', async () => {
    const port = await nodePort('web', 'TCP');
    const ip = nodeIp[N1]!;
    let stop = false;
    const failures: string[] = [];
    let attempts = 0;
    const sampler = (async () => {
      while (!stop) {
        const a = await tcpAnswer(ip, port, 2_000);
        attempts++;
        if (!answered(a)) failures.push(a);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await lab.restart(`antrea-agent@${N1}`);
    await new Promise((r) => setTimeout(r, 2_000));
    stop = true;
    await sampler;
    expect(attempts).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  }, 120_000);

  it('proxyAll off again: the agent removes its NodePort rules and Service routes', async () => {
    expect(await nat(N2)).toContain('ANTREA-NODEPORT');
    expect(await nodeRoutes(N2)).toContain('via 169.254.0.253');
    writeFileSync(agentConf(N2), readFileSync(agentConf(N2), 'utf8').replace(PROXY_ALL_CONF, ''));
    await lab.restart(`antrea-agent@${N2}`);
    expect(await nat(N2)).not.toContain('ANTREA-NODEPORT');
    expect(await nodeRoutes(N2)).not.toContain('169.254.0.253');
    expect(await tcpAnswer(nodeIp[N2]!, await nodePort('web', 'TCP'), 2_000)).not.toMatch(/^s[12] /);
  }, 120_000);
});

/** One TCP connection from wherever it runs (`node -e`): prints what the server wrote. */
const TCP_ONCE = `
const [host, port] = process.argv.slice(1);
const s = require('node:net').connect({ host, port: Number(port) });
let d = '';
const t = setTimeout(() => { console.log('timeout'); process.exit(0); }, 3000);
s.on('data', (x) => (d += x));
s.on('end', () => { clearTimeout(t); console.log(d.trim()); });
s.on('error', (e) => { clearTimeout(t); console.log(e.code); });
`;
