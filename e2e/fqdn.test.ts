// FQDN egress policies on the lab (instance 22: lab22-*, lb22*, its own state dir): a 1-Node lab with
// the real antrea-controller, antrea-agent and userspace OVS. A DNS server (e2e/fqdn/dns-responder.ts)
// and TCP servers run in the root namespace on addresses of the lab's underlay (the "external
// hosts" behind the Node's gateway and SNAT). A client Pod under an ACNP (allow DNS, allow
// `*.test.example` and one exact name on TCP 8080, drop the rest) resolves names through that DNS
// server and connects to the answers on real packets. `antctl get fqdncache` (the built binary in
// the Node's netns) lists what the agent learned.

import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedBinDir, poll, run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEgressPolicy } from './fqdn/cluster-policy.js';
import { DnsResponder, type ZoneEntry } from './fqdn/dns-responder.js';
import { e2eLabOptions } from './framework/lab-options.js';
import { kubectlCommand } from './framework/providers/kind.js';
import { KubectlObjects } from './framework/providers/kubectl-objects.js';
import { LabClusterProvider } from './framework/providers/lab-cluster-provider.js';

const ROOT = join(import.meta.dirname, '..');
const INSTANCE = 22;
const options = e2eLabOptions(INSTANCE);
const NODE = `lab${INSTANCE}-node-1`;
const NS = 'fq';
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

const BASE = `198.19.${INSTANCE}`;
const DNS_SERVER = `${BASE}.1`;
const PORT = 8080;
/** External hosts: one address per answer, each with a TCP server on PORT. */
const IP = {
  wild: `${BASE}.201`,
  cname: `${BASE}.202`,
  short: `${BASE}.203`,
  exact: `${BASE}.204`,
  other: `${BASE}.205`,
  never: `${BASE}.206`,
  tcpDns: `${BASE}.207`,
} as const;
const ZONE = new Map<string, ZoneEntry>([
  ['a.test.example', { a: IP.wild, ttl: 3600 }],
  ['b.test.example', { cname: 'edge.cdn.example', ttl: 3600 }],
  ['edge.cdn.example', { a: IP.cname, ttl: 3600 }],
  ['short.test.example', { a: IP.short, ttl: 3 }],
  ['exact.example.org', { a: IP.exact, ttl: 3600 }],
  ['other.example.net', { a: IP.other, ttl: 3600 }],
  ['big.test.example', { a: IP.tcpDns, ttl: 3600, tcpOnly: true }],
  ['junk.test.example', { garbage: 'not a DNS message' }],
]);

/**
 * The client, run with `node -e` in the Pod's netns (CommonJS, builtins only):
 *   lookup SERVER NAME   resolve NAME (A, with TTLs) through SERVER, then at once connect to every
 *                        answer on PORT (5 s timeout); prints {addresses, connects:[{ip, r: ok|timeout|<errno>}]}
 *   connect IP           one TCP connection to IP:PORT (1.5 s timeout); prints {ip, r}
 *   raw SERVER NAME      one hand-made UDP query; prints {reply: <the reply as text>} or {reply: null}
 */
const CLIENT = `
const dns = require('node:dns');
const dgram = require('node:dgram');
const net = require('node:net');
const [mode, a, b] = process.argv.slice(1);
const PORT = ${PORT};
function connect(ip, timeoutMs) {
  return new Promise((resolve) => {
    const s = net.connect({ host: ip, port: PORT });
    const done = (r) => { clearTimeout(t); s.destroy(); resolve({ ip, r }); };
    const t = setTimeout(() => done('timeout'), timeoutMs);
    s.on('connect', () => done('ok'));
    s.on('error', (e) => done(e.code));
  });
}
(async () => {
  if (mode === 'lookup') {
    const r = new dns.promises.Resolver({ timeout: 3000, tries: 2 });
    r.setServers([a]);
    let addresses;
    try { addresses = await r.resolve4(b, { ttl: true }); }
    catch (e) { console.log(JSON.stringify({ error: e.code })); return; }
    const connects = [];
    for (const x of addresses) connects.push(await connect(x.address, 5000));
    console.log(JSON.stringify({ addresses, connects }));
  } else if (mode === 'connect') {
    console.log(JSON.stringify(await connect(a, 1500)));
  } else if (mode === 'raw') {
    const labels = b.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
    const q = Buffer.concat([Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 1, 0, 1])]);
    const sock = dgram.createSocket('udp4');
    const t = setTimeout(() => { console.log(JSON.stringify({ reply: null })); sock.close(); }, 3000);
    sock.on('message', (m) => { clearTimeout(t); console.log(JSON.stringify({ reply: m.toString() })); sock.close(); });
    sock.send(q, 53, a);
  }
})();
`;

interface Lookup {
  error?: string;
  addresses?: { address: string; ttl: number }[];
  connects?: { ip: string; r: string }[];
}

describe.skipIf(!isRoot)('FQDN egress policies on the lab', () => {
  let lab: Lab;
  let dnsServer: DnsResponder;
  let provider: LabClusterProvider;
  const tcpServers: Server[] = [];

  const client = async (args: string[]) =>
    JSON.parse(await lab.exec(NS, 'client', ['node', '-e', CLIENT, ...args], { timeoutMs: 20_000 }));
  const lookup = (name: string): Promise<Lookup> => client(['lookup', DNS_SERVER, name]);

  /** The sum of n_packets of the Node's br-int flows that `ovs-ofctl dump-flows` lists for `filter` and `pick` keeps. */
  const flowPackets = async (filter: string, pick: (line: string) => boolean): Promise<number> => {
    const flows = await lab.brIntOfctl(NODE, ['dump-flows'], [filter]);
    return flows
      .split('\n')
      .filter(pick)
      .reduce((sum, l) => sum + Number(/n_packets=(\d+)/.exec(l)?.[1] ?? 0), 0);
  };
  /** The switch credits flow counters a little later (revalidation): read until they settle. */
  const settled = async (read: () => Promise<number>): Promise<number> => {
    for (let last = await read(); ; ) {
      await new Promise((r) => setTimeout(r, 1_500));
      const now = await read();
      if (now === last) return now;
      last = now;
    }
  };
  /** Packets the policy's Drop rule dropped (its metric flow: reg3 = the rule's id, action drop). */
  const policyDrops = () => flowPackets('ip', (l) => l.includes('reg3=') && l.endsWith('actions=drop'));

  /**
   * A lookup whose first connection must pass with its very first SYN: nothing may hit the Drop rule
   * meanwhile (a SYN dropped before the rule had the address would, and the retransmission pass).
   */
  const lookupAllowedAtOnce = async (name: string): Promise<Lookup> => {
    const drops = await settled(policyDrops);
    const r = await lookup(name);
    expect(await settled(policyDrops)).toBe(drops);
    return r;
  };
  const connect = async (ip: string): Promise<string> => (await client(['connect', ip])).r;
  /** The built antctl in agent mode on the Node, with the agent's loopback token (as in the agent Pod). */
  const antctl = (args: string[]): Promise<string> => provider.antctl(args, { mode: 'agent', node: NODE });

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      {
        cwd: ROOT,
      },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 1 });
    provider = new LabClusterProvider(
      lab,
      new KubectlObjects(
        kubectlCommand({ kubectl: join(cachedBinDir(), 'kubectl'), kubeconfig: lab.kubeconfigPath }),
      ),
      { antctlMain: join(ROOT, 'dist/cmd/antctl/main.js') },
    );
    for (const ip of Object.values(IP)) {
      await run(['ip', 'addr', 'add', `${ip}/32`, 'dev', lab.layout.underlayBridge]);
      const server = createServer((s) => {
        s.on('error', () => {}); // clients close at once
        s.end('hello\n');
      });
      await new Promise<void>((resolve) => server.listen(PORT, ip, resolve));
      tcpServers.push(server);
    }
    dnsServer = new DnsResponder(ZONE, DNS_SERVER);
    await dnsServer.start();
    await lab.createPod({ namespace: NS, name: 'client', node: NODE, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 'bystander', node: NODE, labels: { app: 'bystander' } });
    await applyEgressPolicy(lab, 'fqdn-egress', 'client', [
      {
        name: 'dns',
        action: 'Allow',
        to: [{ ipBlock: { cidr: `${DNS_SERVER}/32` } }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
      {
        name: 'fqdn',
        action: 'Allow',
        to: [{ fqdn: '*.Test.example' }, { fqdn: 'EXACT.example.org' }],
        ports: [{ protocol: 'TCP', port: PORT }],
      },
      { name: 'rest', action: 'Drop', to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] },
    ]);
    // The Drop rule is realized once a never-resolved address stops answering.
    await poll('policy realized', async () => (await connect(IP.never)) === 'timeout', {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  }, 300_000);

  afterAll(async () => {
    await dnsServer?.stop();
    for (const s of tcpServers) s.close();
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('the external hosts answer a Pod without the policy (the path works)', async () => {
    const r = JSON.parse(
      await lab.exec(NS, 'bystander', ['node', '-e', CLIENT, 'connect', IP.never], { timeoutMs: 20_000 }),
    );
    expect(r.r).toBe('ok');
  });

  it('allows nothing before a lookup', async () => {
    expect(await connect(IP.wild)).toBe('timeout');
    expect(await connect(IP.exact)).toBe('timeout');
  });

  it('a wildcard name: the first connection right after the lookup is allowed', async () => {
    const r = await lookupAllowedAtOnce('a.test.example');
    expect(r.addresses?.map((a) => a.address)).toEqual([IP.wild]);
    expect(r.connects).toEqual([{ ip: IP.wild, r: 'ok' }]);
  });

  it('a CNAME chain: the name asked for gets the canonical name’s address', async () => {
    const r = await lookupAllowedAtOnce('B.TEST.EXAMPLE');
    expect(r.connects).toEqual([{ ip: IP.cname, r: 'ok' }]);
  });

  it('an exact name, asked in another case', async () => {
    const r = await lookupAllowedAtOnce('Exact.Example.Org');
    expect(r.connects).toEqual([{ ip: IP.exact, r: 'ok' }]);
  });

  it('a DNS answer over TCP (after a truncated UDP answer) is learned too', async () => {
    const r = await lookupAllowedAtOnce('big.test.example');
    expect(dnsServer.asked).toContain('tcp:big.test.example');
    expect(r.connects).toEqual([{ ip: IP.tcpDns, r: 'ok' }]);
  });

  it('drops names no rule selects and addresses the Pod never looked up', async () => {
    const drops = await settled(policyDrops);
    const r = await lookup('other.example.net');
    expect(r.addresses?.map((a) => a.address)).toEqual([IP.other]);
    expect(r.connects).toEqual([{ ip: IP.other, r: 'timeout' }]);
    expect(await connect(IP.never)).toBe('timeout');
    // The Drop rule counted them (what lookupAllowedAtOnce relies on).
    expect(await settled(policyDrops)).toBeGreaterThan(drops);
  });

  it('antctl get fqdncache lists the learned names and addresses, and --domain filters them', async () => {
    const asked = Date.now();
    const all = JSON.parse(await antctl(['get', 'fqdncache', '-o', 'json'])) as {
      fqdnName: string;
      ipAddress: string;
      expirationTime: string;
    }[];
    // Selected names the Pod looked up (a CNAME under the name asked for); never an unselected one.
    expect(all.map((e) => [e.fqdnName, e.ipAddress])).toEqual([
      ['a.test.example', IP.wild],
      ['b.test.example', IP.cname],
      ['big.test.example', IP.tcpDns],
      ['exact.example.org', IP.exact],
    ]);
    // Learned with a 3600 s TTL within this file's run.
    for (const e of all) {
      const left = Date.parse(e.expirationTime) - asked;
      expect(left).toBeGreaterThan(3_000_000);
      expect(left).toBeLessThanOrEqual(3_600_000);
    }
    const table = (await antctl(['get', 'fqdncache', '--domain', '*.test.example'])).trimEnd().split('\n');
    expect(table[0]).toMatch(/^FQDN +ADDRESS +EXPIRATION TIME *$/);
    expect(table.slice(1).map((l) => l.split(/ +/).slice(0, 2))).toEqual([
      ['a.test.example', IP.wild],
      ['b.test.example', IP.cname],
      ['big.test.example', IP.tcpDns],
    ]);
    expect(table[1]).toMatch(/ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC *$/);
    expect(await antctl(['get', 'fqdncache', '-d', 'nothing.example'])).toBe('\n');
  });

  it('delivers a response the agent cannot parse, unchanged', async () => {
    expect(await client(['raw', DNS_SERVER, 'junk.test.example'])).toEqual({ reply: 'not a DNS message' });
  });

  it('pauses each answer once: the resumed packet is not intercepted again', async () => {
    const intercepted = () => flowPackets('udp,tp_src=53', (l) => l.includes('pause'));
    const before = await settled(intercepted);
    await lookup('a.test.example');
    expect(await settled(intercepted)).toBe(before + 1);
  });

  it('drops new connections again once the answer’s TTL has run out', async () => {
    const r = await lookup('short.test.example');
    expect(r.addresses).toEqual([{ address: IP.short, ttl: 3 }]);
    expect(r.connects).toEqual([{ ip: IP.short, r: 'ok' }]);
    await poll('TTL expiry', async () => (await connect(IP.short)) === 'timeout', {
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    // A name learned with a long TTL is unaffected.
    expect(await connect(IP.wild)).toBe('ok');
  });

  it('after an agent restart: exact names are resolved by the agent (dnsServerOverride), wildcards re-learned at the next lookup', async () => {
    appendFileSync(
      join(lab.layout.nodeDir(NODE), 'antrea-agent.conf'),
      `dnsServerOverride: ${DNS_SERVER}:53\n`,
    );
    await lab.restart(`antrea-agent@${NODE}`);
    // The new agent's first realization has no wildcard answers: a.test.example's address goes.
    await poll('wildcard address dropped', async () => (await connect(IP.wild)) === 'timeout', {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    // The exact name was resolved by the agent itself, before the Pod asked.
    await poll('exact name resolved by the agent', async () => (await connect(IP.exact)) === 'ok', {
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    expect(dnsServer.asked).toContain('udp:exact.example.org');
    const r = await lookup('a.test.example');
    expect(r.connects).toEqual([{ ip: IP.wild, r: 'ok' }]);
  });
});
