// The probe and server programs, run for real: two netns joined by a veth, serve.mjs in one,
// probe.mjs in the other, and iptables in the server netns turning ports into DROP and REJECT.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createNetns, createVethPair, type Netns, uniqueTag } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROBE_TOOL,
  parseProbeOutput,
  probeArgs,
  runProbeTool,
  SERVE_TOOL,
  serveArgs,
} from './agent-tools.js';

const rootAndTools = process.getuid?.() === 0;

describe('agent-tools argument and output helpers', () => {
  it('builds probe targets, bracketing IPv6', () => {
    expect(
      probeArgs(
        [
          { ip: '10.0.0.1', port: 80, protocol: 'TCP' },
          { ip: 'fd00::1', port: 81, protocol: 'UDP' },
        ],
        1500,
      ),
    ).toEqual(['--timeout-ms', '1500', 'tcp:10.0.0.1:80', 'udp:[fd00::1]:81']);
  });

  it('serves TCP and UDP on every declared port number, SCTP left out', () => {
    const spec = {
      namespace: 'x',
      name: 'a',
      labels: {},
      ports: [
        { name: 'serve-80-tcp', port: 80, protocol: 'TCP' as const },
        { name: 'serve-81-sctp', port: 81, protocol: 'SCTP' as const },
      ],
    };
    expect(serveArgs(spec)).toEqual(['--id', 'x/a', '--tcp', '80,81', '--udp', '80,81']);
    expect(serveArgs(spec, (p) => p === 'TCP')).toEqual(['--id', 'x/a', '--tcp', '80,81']);
  });

  it('rejects probe output that does not answer the targets asked', () => {
    const t = [{ ip: '10.0.0.1', port: 80, protocol: 'TCP' as const }];
    expect(parseProbeOutput('{"target":"tcp:10.0.0.1:80","result":"drop","ms":3}\n', t)).toEqual(['drop']);
    for (const bad of [
      '',
      'garbage\n',
      '{"target":"tcp:10.0.0.2:80","result":"allow"}',
      '{"target":"tcp:10.0.0.1:80","result":"ok"}',
    ])
      expect(() => parseProbeOutput(bad, t)).toThrow(expect.objectContaining({ code: 'E2E_PROBE_TOOL' }));
  });

  it('exits 2 on a bad target', async () => {
    const code = await new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, [PROBE_TOOL, 'tcp:not-an-ip:80'], { stdio: 'ignore' });
      p.on('exit', resolve);
    });
    expect(code).toBe(2);
  });
});

describe.skipIf(!rootAndTools)('probe.mjs and serve.mjs in netns', () => {
  const tag = uniqueTag();
  let client: Netns;
  let server: Netns;
  let serverProc: ChildProcess | undefined;
  const SERVER_IP = '10.99.0.2';

  beforeAll(async () => {
    client = await createNetns(`ats-e2e-${tag}-c`);
    server = await createNetns(`ats-e2e-${tag}-s`);
    await createVethPair({ name: 'eth0', netns: client.name }, { name: 'eth0', netns: server.name });
    await client.exec(['ip', 'addr', 'add', '10.99.0.1/24', 'dev', 'eth0']);
    await server.exec(['ip', 'addr', 'add', `${SERVER_IP}/24`, 'dev', 'eth0']);
    // 80 open, 81 silently dropped, 84 rejected with RST / port unreachable, 85 with ICMP host
    // administratively prohibited (what Antrea sends for a rejected non-TCP packet), 87 with plain
    // host unreachable.
    const rules = [
      ['-p', 'tcp', '--dport', '81', '-j', 'DROP'],
      ['-p', 'udp', '--dport', '81', '-j', 'DROP'],
      ['-p', 'tcp', '--dport', '84', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
      ['-p', 'udp', '--dport', '84', '-j', 'REJECT', '--reject-with', 'icmp-port-unreachable'],
      ['-p', 'tcp', '--dport', '85', '-j', 'REJECT', '--reject-with', 'icmp-host-prohibited'],
      ['-p', 'udp', '--dport', '85', '-j', 'REJECT', '--reject-with', 'icmp-host-prohibited'],
      ['-p', 'tcp', '--dport', '87', '-j', 'REJECT', '--reject-with', 'icmp-host-unreachable'],
      ['-p', 'udp', '--dport', '87', '-j', 'REJECT', '--reject-with', 'icmp-host-unreachable'],
    ];
    for (const r of rules) await server.exec(['iptables', '-A', 'INPUT', ...r]);
    const spec = {
      namespace: 'x',
      name: 'a',
      labels: {},
      ports: [80, 81, 84, 85, 87].map((port) => ({ port, protocol: 'TCP' as const })),
    };
    const proc = spawn(
      'ip',
      ['netns', 'exec', server.name, process.execPath, SERVE_TOOL, ...serveArgs(spec)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    serverProc = proc;
    const ready = await new Promise<string>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`serve.mjs exited ${code}`)));
      createInterface({ input: proc.stdout! }).once('line', resolve);
    });
    expect(JSON.parse(ready)).toEqual({
      ready: true,
      id: 'x/a',
      tcp: [80, 81, 84, 85, 87],
      udp: [80, 81, 84, 85, 87],
    });
  });

  afterAll(async () => {
    if (serverProc && serverProc.exitCode === null) {
      const exited = new Promise((r) => serverProc!.once('exit', r));
      serverProc.kill('SIGTERM');
      await exited;
    }
    await client?.delete();
    await server?.delete();
  });

  const probe = (targets: { port: number; protocol: 'TCP' | 'UDP' }[], timeoutMs = 800) =>
    runProbeTool(
      (argv) => client.exec(argv, { timeoutMs: 10_000 }),
      targets.map((t) => ({ ip: SERVER_IP, ...t })),
      timeoutMs,
      process.execPath,
    );

  it('tells allow, drop and reject apart for TCP and UDP, all targets in one run', async () => {
    const ports = [80, 81, 84, 85, 86, 87];
    const targets = ports.flatMap((port) =>
      (['TCP', 'UDP'] as const).map((protocol) => ({ port, protocol })),
    );
    const got = await probe(targets);
    expect(Object.fromEntries(targets.map((t, i) => [`${t.protocol}/${t.port}`, got[i]]))).toEqual({
      'TCP/80': 'allow',
      'UDP/80': 'allow',
      'TCP/81': 'drop',
      'UDP/81': 'drop',
      'TCP/84': 'reject', // RST
      'UDP/84': 'reject', // ICMP port unreachable
      'TCP/85': 'reject', // ICMP host prohibited
      'UDP/85': 'reject',
      'TCP/87': 'reject', // ICMP host unreachable aborts a SYN_SENT connection
      // ...but Linux reports a non-fatal ICMP error (host unreachable, code 1) to a UDP socket only
      // with IP_RECVERR, which Node cannot set: the probe sees silence. A datapath that rejects UDP
      // must send port unreachable or administratively prohibited to be seen as a reject.
      'UDP/87': 'drop',
      'TCP/86': 'reject', // nothing listens: the kernel's RST
      'UDP/86': 'reject', // nothing listens: the kernel's port unreachable
    });
  });

  it('reports error, not a verdict, when the netns has no route', async () => {
    const out = await runProbeTool(
      (argv) => client.exec(argv, { timeoutMs: 10_000 }),
      [{ ip: '192.0.2.1', port: 80, protocol: 'TCP' }],
      500,
      process.execPath,
    );
    expect(out).toEqual(['error']);
  });

  it('runs from stdin, as a kind provider feeds it through kubectl exec -i', async () => {
    const out = await client.exec(
      [
        process.execPath,
        '--input-type=module',
        '-',
        '--timeout-ms',
        '800',
        `tcp:${SERVER_IP}:80`,
        `udp:${SERVER_IP}:81`,
      ],
      { input: readFileSync(PROBE_TOOL, 'utf8'), timeoutMs: 10_000 },
    );
    expect(
      parseProbeOutput(out, [
        { ip: SERVER_IP, port: 80, protocol: 'TCP' },
        { ip: SERVER_IP, port: 81, protocol: 'UDP' },
      ]),
    ).toEqual(['allow', 'drop']);
  });
});
