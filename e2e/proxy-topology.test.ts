// AntreaProxy's zone hints end to end on the lab (instance 43: lab43-*, its own state dir): the two
// lab Nodes get topology.kubernetes.io/zone labels, a Service asks for trafficDistribution
// PreferClose, kube-controller-manager's EndpointSlice controller writes zone hints, and each
// Node's agent then sends its Pods' connections to the endpoints of its own zone only. Without the
// hints (the field removed) both endpoints take connections again. Last, CleanupStaleUDPSvcConntrack
// (on by default): a UDP client that keeps its source port follows its endpoint's removal from a
// Service at once, instead of talking to the removed endpoint for as long as it keeps sending.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(43);
const N1 = 'lab43-node-1';
const N2 = 'lab43-node-2';
const NS = 'topo';
const HTTP = 80;
const DNS = 5353;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/**
 * argv: host port count. `count` TCP connections one after another (each from a new source port);
 * prints a JSON array of what each server wrote ("<ns>/<pod>"), "timeout" or the error code.
 */
const TCP_CLIENT = String.raw`
const net = require('node:net');
const [host, port, count] = process.argv.slice(1);
const once = () => new Promise((resolve) => {
  let data = '';
  const sock = net.connect({ host, port: Number(port) });
  const timer = setTimeout(() => { sock.destroy(); resolve('timeout'); }, 3000);
  sock.on('data', (x) => (data += x));
  sock.on('end', () => { clearTimeout(timer); resolve(data.trim()); });
  sock.on('error', (e) => { clearTimeout(timer); resolve(e.code); });
});
(async () => {
  const out = [];
  for (let i = 0; i < Number(count); i++) out.push(await once());
  console.log(JSON.stringify(out));
})();
`;

/** argv: host port sourcePort; one "ping" from sourcePort, prints the "pong" sender id or "timeout". */
const UDP_FROM_PORT = String.raw`
const sock = require('node:dgram').createSocket('udp4');
const [host, port, sport] = process.argv.slice(1);
sock.bind(Number(sport), () => {
  const timer = setTimeout(() => { console.log('timeout'); sock.close(); }, 2000);
  sock.on('message', (m) => {
    const [pong, nonce, id] = m.toString().trim().split(' ');
    if (pong === 'pong' && nonce === 'n1') { clearTimeout(timer); console.log(id); sock.close(); }
  });
  sock.send('ping n1', Number(port), host);
});
`;

describe.skipIf(!isRoot)('AntreaProxy zone hints on the lab', () => {
  let lab: Lab;
  let webIp = '';

  const applyService = (name: string, spec: object) =>
    lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS }, spec }),
    });
  const serviceIp = async (name: string) =>
    (await lab.kubectl(['get', 'service', name, '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  /** Who answered `count` connections from a client Pod to web. */
  const answers = async (client: string, count: number): Promise<string[]> =>
    JSON.parse(
      await lab.exec(NS, client, ['node', '-e', TCP_CLIENT, webIp, '8080', String(count)], {
        timeoutMs: count * 3_000 + 30_000,
      }),
    ) as string[];
  /** The zones web's EndpointSlices hint, per endpoint address ([] for an endpoint without hints). */
  const hints = async (): Promise<Map<string, string[]>> => {
    const list = JSON.parse(
      await lab.kubectl([
        'get',
        'endpointslices',
        '-n',
        NS,
        '-l',
        'kubernetes.io/service-name=web',
        '-o',
        'json',
      ]),
    ) as { items: V1EndpointSlice[] };
    return new Map(
      list.items.flatMap((s) =>
        (s.endpoints ?? []).map(
          (e) => [e.addresses[0]!, (e.hints?.forZones ?? []).map((z) => z.name)] as const,
        ),
      ),
    );
  };
  /** Waits until every client's connections all land on `wanted` (the agents follow the slices). */
  const settles = (client: string, wanted: (seen: Set<string>) => boolean, what: string) =>
    poll(`${what} from ${client}`, async () => wanted(new Set(await answers(client, 12))), {
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    // Zones first: the EndpointSlice controller reads an endpoint's zone from its Node.
    await lab.kubectl(['label', 'node', N1, 'topology.kubernetes.io/zone=zone-a', '--overwrite']);
    await lab.kubectl(['label', 'node', N2, 'topology.kubernetes.io/zone=zone-b', '--overwrite']);
    const ports = [
      { port: HTTP, protocol: 'TCP' as const },
      { port: DNS, protocol: 'UDP' as const },
    ];
    await lab.createPod({ namespace: NS, name: 'client-1', node: N1, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 'client-2', node: N2, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 's1', node: N1, labels: { app: 'server', udp: 'on' }, ports });
    await lab.createPod({ namespace: NS, name: 's2', node: N2, labels: { app: 'server', udp: 'on' }, ports });
    await applyService('web', {
      selector: { app: 'server' },
      ports: [{ port: 8080, targetPort: HTTP, protocol: 'TCP' }],
      trafficDistribution: 'PreferClose',
    });
    await applyService('dns', {
      selector: { udp: 'on' },
      ports: [{ port: 53, targetPort: DNS, protocol: 'UDP' }],
    });
    webIp = await serviceIp('web');
  }, 300_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('PreferClose: kube-controller-manager hints each endpoint for its Node’s zone', async () => {
    const s1 = lab.pod(NS, 's1').ips[0]!;
    const s2 = lab.pod(NS, 's2').ips[0]!;
    await poll(
      'zone hints on web’s endpoints',
      async () => {
        const h = await hints();
        return h.get(s1)?.[0] === 'zone-a' && h.get(s2)?.[0] === 'zone-b';
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  }, 120_000);

  it('each Node’s Pod reaches only the endpoint in its own zone', async () => {
    await settles('client-1', (s) => s.size === 1 && s.has(`${NS}/s1`), 'zone-a endpoint only');
    expect(new Set(await answers('client-1', 20))).toEqual(new Set([`${NS}/s1`]));
    await settles('client-2', (s) => s.size === 1 && s.has(`${NS}/s2`), 'zone-b endpoint only');
    expect(new Set(await answers('client-2', 20))).toEqual(new Set([`${NS}/s2`]));
  }, 180_000);

  it('hints removed (trafficDistribution dropped): both endpoints from either Node', async () => {
    await lab.kubectl([
      'patch',
      'service',
      'web',
      '-n',
      NS,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/spec/trafficDistribution"}]',
    ]);
    await poll('web’s hints gone', async () => [...(await hints()).values()].every((z) => z.length === 0), {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const both = (s: Set<string>) => s.has(`${NS}/s1`) && s.has(`${NS}/s2`);
    await settles('client-1', both, 'both endpoints');
    // 30 connections from new source ports, hashed over two buckets: both are hit (2^-29 odds not).
    expect(new Set(await answers('client-1', 30))).toEqual(new Set([`${NS}/s1`, `${NS}/s2`]));
    expect(new Set(await answers('client-2', 30))).toEqual(new Set([`${NS}/s1`, `${NS}/s2`]));
  }, 180_000);

  it('a UDP client keeping its source port follows its endpoint leaving the Service (stale conntrack deleted)', async () => {
    const dnsIp = await serviceIp('dns');
    const from = (sport: number) =>
      lab
        .exec(NS, 'client-1', ['node', '-e', UDP_FROM_PORT, dnsIp, '53', String(sport)], {
          timeoutMs: 30_000,
        })
        .then((out) => out.trim());
    // Both servers answer the Service (new source ports hash over both buckets).
    await poll(
      'both UDP endpoints answer',
      async () => {
        const seen = new Set<string>();
        for (let sport = 47000; sport < 47012; sport++) seen.add(await from(sport));
        return seen.has(`${NS}/s1`) && seen.has(`${NS}/s2`);
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    const SPORT = 47100;
    const first = await from(SPORT);
    expect([`${NS}/s1`, `${NS}/s2`]).toContain(first);
    const gone = first.split('/')[1]!;
    const other = `${NS}/${gone === 's1' ? 's2' : 's1'}`;
    // The endpoint leaves the Service; its Pod keeps running and would still answer a stale entry.
    await lab.kubectl(['label', 'pod', gone, '-n', NS, 'udp-']);
    // Sending every second keeps a stale entry alive: without the flush this stays `first`.
    await poll(
      'the same source port answered by the remaining endpoint',
      async () => (await from(SPORT)) === other,
      {
        timeoutMs: 30_000,
        intervalMs: 1_000,
      },
    );
    expect(await from(SPORT)).toBe(other);
  }, 180_000);
});
