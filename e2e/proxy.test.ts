// AntreaProxy end to end on the lab (instance 24: lab24-*, its own state dir): a 2-Node lab with the
// real antrea-controller, antrea-agents and userspace OVS, no kube-proxy. Server Pods on both Nodes
// behind ClusterIP Services; a client Pod on Node 1 opens real TCP connections and sends real UDP
// datagrams to the ClusterIPs, and each server answers with its own name, so the tests see which
// endpoint the agent's OVS picked.
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { settle } from './framework/settle.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(24);
const N1 = 'lab24-node-1';
const N2 = 'lab24-node-2';
const NS = 'px';
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/** Server Pods' ports (serve.mjs answers TCP with "<ns>/<pod>", UDP "ping X" with "pong X <ns>/<pod>"). */
const HTTP = 80;
const DNS = 5353;
/** The echo server's port in Pod echo (long-lived connections across an agent restart). */
const ECHO = 7000;

/**
 * The client, run with `node -e` in a Pod's netns (CommonJS, Node builtins only). Modes:
 *   tcp HOST PORT COUNT TIMEOUT_MS   COUNT connections one after another; prints one JSON array of
 *                                     {r:'ok',id} (what the server wrote) | {r:'reject',code} | {r:'timeout'}
 *   udp HOST PORT COUNT TIMEOUT_MS   COUNT datagrams, each from a new socket (a new connection)
 *   hold HOST PORT                   one connection writing a line every 100 ms; at stdin's end prints
 *                                     {sent, echoed, error} (an echo server answers every line)
 *   echo PORT                        the echo server
 */
const CLIENT = String.raw`
const net = require('node:net');
const dgram = require('node:dgram');
const [mode, a, b, c, d] = process.argv.slice(1);
const timeoutMs = Number(d);
function tcpOnce(host, port) {
  return new Promise((resolve) => {
    let data = '';
    const sock = net.connect({ host, port: Number(port) });
    const done = (v) => { clearTimeout(t); sock.destroy(); resolve(v); };
    const t = setTimeout(() => done({ r: 'timeout' }), timeoutMs);
    sock.on('data', (x) => (data += x));
    sock.on('end', () => done({ r: 'ok', id: data.trim() }));
    sock.on('error', (e) => done(e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' ? { r: 'reject', code: e.code } : { r: 'error', code: e.code }));
  });
}
function udpOnce(host, port) {
  return new Promise((resolve) => {
    const nonce = Math.random().toString(36).slice(2);
    const sock = dgram.createSocket('udp4');
    const done = (v) => { clearTimeout(t); sock.close(); resolve(v); };
    const t = setTimeout(() => done({ r: 'timeout' }), timeoutMs);
    sock.on('message', (m) => {
      const [pong, n, id] = m.toString().trim().split(' ');
      if (pong === 'pong' && n === nonce) done({ r: 'ok', id });
    });
    sock.on('error', (e) => done({ r: e.code === 'ECONNREFUSED' ? 'reject' : 'error', code: e.code }));
    sock.connect(Number(port), host, () => sock.send('ping ' + nonce));
  });
}
async function many(once) {
  const out = [];
  for (let i = 0; i < Number(c); i++) out.push(await once(a, b));
  console.log(JSON.stringify(out));
}
if (mode === 'tcp') many(tcpOnce);
else if (mode === 'udp') many(udpOnce);
else if (mode === 'echo') net.createServer((s) => { s.on('error', () => {}); s.pipe(s); }).listen(Number(a), () => console.log('ready'));
else if (mode === 'hold') {
  let sent = 0, echoed = 0, error;
  const sock = net.connect({ host: a, port: Number(b) }, () => console.log('connected'));
  sock.on('data', (x) => (echoed += x.toString().split('\n').length - 1));
  sock.on('error', (e) => (error = e.code));
  sock.on('close', () => (error = error || 'closed'));
  const timer = setInterval(() => { if (!error) { sock.write(sent + '\n'); sent++; } }, 100);
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => {
    clearInterval(timer);
    setTimeout(() => { console.log(JSON.stringify({ sent, echoed, error: error || null })); process.exit(0); }, 1000);
  });
}
`;

type Outcome = { r: 'ok'; id: string } | { r: 'reject' | 'error'; code: string } | { r: 'timeout' };

describe.skipIf(!isRoot)('AntreaProxy on the lab', () => {
  let lab: Lab;
  const servers = [`${NS}/s1`, `${NS}/s2`];
  const clusterIp = async (svc: string) =>
    (await lab.kubectl(['get', 'service', svc, '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])).trim();

  /** COUNT TCP connections (or UDP exchanges) from a Pod to HOST:PORT, one after another. */
  async function connect(
    pod: string,
    proto: 'tcp' | 'udp',
    host: string,
    port: number,
    count: number,
    timeoutMs = 3_000,
  ): Promise<Outcome[]> {
    const out = await lab.exec(
      NS,
      pod,
      ['node', '-e', CLIENT, proto, host, String(port), String(count), String(timeoutMs)],
      { timeoutMs: count * timeoutMs + 30_000 },
    );
    return JSON.parse(out) as Outcome[];
  }
  const ids = (outcomes: Outcome[]) => outcomes.map((o) => (o.r === 'ok' ? o.id : o.r));
  /** Waits until a connection to the Service succeeds (the agents' flows for it are in). */
  const reachable = (pod: string, proto: 'tcp' | 'udp', host: string, port: number) =>
    poll(
      `${proto} ${host}:${port} from ${NS}/${pod}`,
      async () => (await connect(pod, proto, host, port, 1, 1_000))[0]?.r === 'ok',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  /** A process running CLIENT in a Pod's netns, for the long-lived modes. */
  function spawnClient(pod: string, args: string[]): ChildProcessWithoutNullStreams {
    const [file, ...rest] = lab.execArgv(NS, pod, ['node', '-e', CLIENT, ...args]);
    return spawn(file!, rest, { stdio: 'pipe' });
  }
  const firstLine = (child: ChildProcessWithoutNullStreams) =>
    new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (x) => {
        out += String(x);
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`client exited ${code} before a line: ${out}`)));
    });
  const service = (name: string, selector: Record<string, string>, ports: object[], extra = {}) =>
    lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace: NS },
        spec: { selector, ports, ...extra },
      }),
    });

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    const ports = [
      { port: HTTP, protocol: 'TCP' as const },
      { port: DNS, protocol: 'UDP' as const },
    ];
    await lab.createPod({ namespace: NS, name: 'client', node: N1, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 's1', node: N1, labels: { app: 'server', at: 'n1' }, ports });
    await lab.createPod({ namespace: NS, name: 's2', node: N2, labels: { app: 'server', at: 'n2' }, ports });
    await lab.createPod({ namespace: NS, name: 'echo', node: N2, labels: { app: 'echo' } });
    const http = { name: 'http', port: 8080, targetPort: HTTP, protocol: 'TCP' };
    await service('web', { app: 'server' }, [
      http,
      { name: 'dns', port: 53, targetPort: DNS, protocol: 'UDP' },
    ]);
    await service('remote', { at: 'n2' }, [{ port: 53, targetPort: DNS, protocol: 'UDP' }]);
    await service('empty', { app: 'nobody' }, [http]);
    await service('sticky', { app: 'server' }, [http], {
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 300 } },
    });
    await service('echo', { app: 'echo' }, [{ port: ECHO, targetPort: ECHO, protocol: 'TCP' }]);
  }, 300_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('TCP to the ClusterIP reaches the local and the remote endpoint (through Geneve), port 8080 -> 80', async () => {
    const ip = await clusterIp('web');
    await reachable('client', 'tcp', ip, 8080);
    // Reaching one endpoint does not say the proxier has both yet (each Pod's readiness is its own
    // EndpointSlice update): sample until both answer, then assert on the last sample.
    const seen = await settle(
      async () => new Set(ids(await connect('client', 'tcp', ip, 8080, 30))),
      new Set(servers),
    );
    expect(seen).toEqual(new Set(servers));
  }, 120_000);

  it('UDP request/reply through the ClusterIP, each datagram a new connection, port 53 -> 5353, also remote', async () => {
    const ip = await clusterIp('web');
    await reachable('client', 'udp', ip, 53);
    // Every datagram is answered, and the select group hashes the 5-tuple (selection_method=hash),
    // so datagrams from new source ports reach both endpoints (2^-19 odds of one endpoint taking all
    // 20); the endpoint on Node 2 is also reached through its own Service.
    const udpSeen = await settle(
      async () => new Set(ids(await connect('client', 'udp', ip, 53, 20))),
      new Set(servers),
    );
    expect(udpSeen).toEqual(new Set(servers));
    const remote = await clusterIp('remote');
    await reachable('client', 'udp', remote, 53);
    expect(ids(await connect('client', 'udp', remote, 53, 10))).toEqual(Array(10).fill(`${NS}/s2`));
  }, 120_000);

  it('a Service without endpoints refuses TCP at once (RST from the ClusterIP, not a timeout)', async () => {
    const outcomes = await connect('client', 'tcp', await clusterIp('empty'), 8080, 3, 10_000);
    expect(outcomes).toEqual(Array(3).fill({ r: 'reject', code: 'ECONNREFUSED' }));
  }, 60_000);

  it('hairpin: a server calling its own Service reaches itself too', async () => {
    const ip = await clusterIp('web');
    const seen = ids(await connect('s1', 'tcp', ip, 8080, 30));
    expect(seen.every((id) => servers.includes(id))).toBe(true);
    expect(seen).toContain(`${NS}/s1`);
  }, 120_000);

  it('sessionAffinity ClientIP: every connection from the client goes to one endpoint', async () => {
    const ip = await clusterIp('sticky');
    await reachable('client', 'tcp', ip, 8080);
    const seen = ids(await connect('client', 'tcp', ip, 8080, 20));
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(1);
    expect(servers).toContain(seen[0]);
  }, 120_000);

  it('a NetworkPolicy sees the endpoint: egress allowed to port 8080 only blocks the ClusterIP 8080 -> 80', async () => {
    // Allows what the client addresses (ClusterIP, TCP 8080) and the DNS port, nothing else: a
    // policy evaluated before DNAT would let the Service traffic through; after DNAT it sees TCP 80.
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'client-egress', namespace: NS },
        spec: {
          podSelector: { matchLabels: { app: 'client' } },
          policyTypes: ['Egress'],
          egress: [
            {
              ports: [
                { protocol: 'TCP', port: 8080 },
                { protocol: 'UDP', port: DNS },
              ],
            },
          ],
        },
      }),
    });
    const ip = await clusterIp('web');
    try {
      await poll(
        'the client policy to block TCP to the ClusterIP',
        async () => (await connect('client', 'tcp', ip, 8080, 1, 1_000))[0]?.r === 'timeout',
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(ids(await connect('client', 'tcp', ip, 8080, 6, 1_000))).toEqual(Array(6).fill('timeout'));
      // The same policy lets the Service's UDP port through: it is realized, and not dropping everything.
      expect(ids(await connect('client', 'udp', ip, 53, 4)).every((id) => servers.includes(id))).toBe(true);
    } finally {
      await lab.kubectl(['delete', 'networkpolicy', 'client-egress', '-n', NS]);
    }
    await reachable('client', 'tcp', ip, 8080);
  }, 180_000);

  it('an agent restart keeps an established connection through the ClusterIP, and new ones work', async () => {
    const server = spawnClient('echo', ['echo', String(ECHO)]);
    try {
      expect(await firstLine(server)).toBe('ready');
      const ip = await clusterIp('echo');
      await reachable('client', 'tcp', await clusterIp('web'), 8080);
      const hold = spawnClient('client', ['hold', ip, String(ECHO)]);
      expect(await firstLine(hold)).toBe('connected');
      let summary = '';
      hold.stdout.on('data', (x) => (summary += String(x)));
      await lab.restart(`antrea-agent@${N1}`);
      // The restarted agent's proxier resyncs after it reports ready: sample until both endpoints answer.
      const web = await clusterIp('web');
      const after = await settle(
        async () => new Set(ids(await connect('client', 'tcp', web, 8080, 20))),
        new Set(servers),
      );
      expect(after).toEqual(new Set(servers));
      await new Promise((r) => setTimeout(r, 1_000));
      hold.stdin.end();
      await new Promise((r) => hold.once('exit', r));
      const result = JSON.parse(summary.trim().split('\n').at(-1)!) as {
        sent: number;
        echoed: number;
        error: string | null;
      };
      expect(result.error).toBeNull();
      expect(result.sent).toBeGreaterThan(10);
      expect(result.echoed).toBe(result.sent);
    } finally {
      server.kill();
    }
  }, 180_000);

  it('scaling down: with one server Pod deleted, new connections only reach the other', async () => {
    await lab.deletePod(NS, 's2');
    const ip = await clusterIp('web');
    await poll(
      'the EndpointSlice of web without s2',
      async () =>
        (
          await lab.kubectl([
            'get',
            'endpointslices',
            '-n',
            NS,
            '-l',
            'kubernetes.io/service-name=web',
            '-o',
            'jsonpath={.items[*].endpoints[*].targetRef.name}',
          ])
        ).trim() === 's1',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // The agent learns of the slice from the same watch: give it the time to rewrite the group.
    await poll(
      'connections to reach s1 only',
      async () => ids(await connect('client', 'tcp', ip, 8080, 6)).every((id) => id === `${NS}/s1`),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(ids(await connect('client', 'tcp', ip, 8080, 20))).toEqual(Array(20).fill(`${NS}/s1`));
  }, 180_000);
});
