// PacketCapture end to end on the lab (instance 44: lab44-*, its own state dir): 2 Nodes with the
// real antrea-agent binaries (featureGates.PacketCapture in their antrea-agent.conf) and the lab's
// RBAC from build/manifests; an OpenSSH sftp server on the lab's host address with the
// antrea-packetcapture-fileserver-auth Secret. A capture of the first N packets of a TCP connection
// from a Pod on Node 1 to a Pod on Node 2 completes and its pcapng file on the sftp server holds
// exactly those N packets; a capture nothing matches times out; bad specs are refused.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PCAPNG_BLOCK } from '@antrea-ts/agent';
import type { PacketCapture } from '@antrea-ts/apis';
import {
  type ManagedProcess,
  makeTempDir,
  poll,
  type SshdInstance,
  startSshd,
  type TempDir,
} from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdTcpConnection, startClientServer } from './framework/lab-flows.js';
import { e2eLabOptions } from './framework/lab-options.js';

const ROOT = join(import.meta.dirname, '..');
const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const options = e2eLabOptions(44, { logger });
const N1 = 'lab44-node-1';
const N2 = 'lab44-node-2';
const NS = 'pcap';
const PORT = 8080;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

describe.skipIf(!isRoot)('PacketCapture on the lab', () => {
  let lab: Lab;
  let dir: TempDir;
  let sshd: SshdInstance;
  let uploadDir: string;
  let echo: ManagedProcess;
  let clientIp: string;
  let serverIp: string;
  let clientNetns: string;

  const get = async (name: string): Promise<PacketCapture> =>
    JSON.parse(await lab.kubectl(['get', 'packetcapture', name, '-o', 'json'])) as PacketCapture;
  const condition = (pc: PacketCapture, type: string) => pc.status?.conditions?.find((c) => c.type === type);
  const create = (pc: object) => lab.kubectl(['create', '-f', '-'], { input: JSON.stringify(pc) });
  const packetCapture = (name: string, spec: object) => ({
    apiVersion: 'crd.antrea.io/v1alpha1',
    kind: 'PacketCapture',
    metadata: { name },
    spec,
  });
  /** Waits until the capture's Complete condition is True; returns the object then. */
  const completed = (name: string, timeoutMs = 90_000) =>
    poll(
      `${name} complete`,
      async () => {
        const pc = await get(name);
        return condition(pc, 'PacketCaptureComplete')?.status === 'True' ? pc : undefined;
      },
      { timeoutMs, intervalMs: 300 },
    );

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      {
        cwd: ROOT,
      },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    // JSON is YAML: the gate as one flow-style document after the lab's keys.
    for (const node of [N1, N2]) await lab.configureAgent(node, 'featureGates: {"PacketCapture": true}\n');
    // The file server where the Nodes reach the host, outside the cluster.
    sshd = await startSshd({ host: lab.layout.hostIp });
    uploadDir = sshd.userDir('captures');
    await lab.kubectl([
      'create',
      'secret',
      'generic',
      'antrea-packetcapture-fileserver-auth',
      '-n',
      'kube-system',
      `--from-literal=username=${sshd.user}`,
      `--from-literal=password=${sshd.password}`,
    ]);
    dir = makeTempDir('packetcapture-e2e');
    const pods = await startClientServer(lab, {
      namespace: NS,
      clientNode: N1,
      serverNode: N2,
      port: PORT,
      logDir: dir.path,
    });
    ({ clientIp, serverIp, clientNetns, echo } = pods);
  }, 300_000);

  afterAll(async () => {
    await echo?.stop();
    await sshd?.stop();
    dir?.remove();
    await Lab.down(options);
  });

  it('captures the first N packets of an inter-Node TCP connection on the source Node and uploads them as pcapng', async () => {
    const N = 5;
    const url = `sftp://${lab.layout.hostIp}:${sshd.port}${uploadDir}`;
    await create(
      packetCapture('tcp-first-n', {
        source: { pod: { namespace: NS, name: 'client' } },
        destination: { pod: { namespace: NS, name: 'server' } },
        packet: { protocol: 'TCP', transportHeader: { tcp: { dstPort: PORT } } },
        captureConfig: { firstN: { number: N } },
        timeout: 120,
        fileServer: { url, hostPublicKey: sshd.hostPublicKey },
      }),
    );
    await poll(
      'capture started',
      async () => condition(await get('tcp-first-n'), 'PacketCaptureStarted')?.status === 'True',
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    // Connections from the client (and the server's replies, which the filter leaves out) until N
    // packets to server:8080 were seen; each connection is several such packets.
    let sport = 43_000;
    const pc = await poll(
      'N packets captured',
      async () => {
        const conn = holdTcpConnection(clientNetns, serverIp, PORT, sport++);
        await new Promise((r) => setTimeout(r, 300));
        await conn.close();
        const now = await get('tcp-first-n');
        return condition(now, 'PacketCaptureComplete')?.status === 'True' ? now : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(condition(pc, 'PacketCaptureComplete')).toMatchObject({ reason: 'Succeed' });
    // The upload ends before Complete is reported: its condition comes with it.
    const uploaded = pc;
    expect(condition(uploaded, 'PacketCaptureFileUploaded')).toMatchObject({
      status: 'True',
      reason: 'Succeed',
    });
    expect(uploaded.status?.numberCaptured).toBe(N);
    expect(uploaded.status?.filePath).toBe(`${url}/tcp-first-n.pcapng`);

    const file = join(uploadDir, 'tcp-first-n.pcapng');
    const bytes = readFileSync(file);
    expect(bytes.readUInt32LE(0)).toBe(PCAPNG_BLOCK.sectionHeader);
    // tcpdump reads it back: exactly N packets, each client -> server:8080 over TCP.
    const { stdout } = await exec('tcpdump', ['-r', file, '-nn', '-q']);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(N);
    for (const line of lines)
      expect(line).toMatch(
        new RegExp(
          `IP ${clientIp.replaceAll('.', '\\.')}\\.\\d+ > ${serverIp.replaceAll('.', '\\.')}\\.${PORT}: tcp`,
        ),
      );
    // The filter is the spec: the same file filtered again loses nothing.
    const { stdout: kept } = await exec('tcpdump', [
      '-r',
      file,
      '-nn',
      '-q',
      `ip proto 6 and src host ${clientIp} and dst host ${serverIp} and dst port ${PORT}`,
    ]);
    expect(kept.trim().split('\n')).toHaveLength(N);
  });

  it('antctl packetcapture: creates the capture, waits for it and names the file on the capturing Node', async () => {
    const run = exec(
      'node',
      [
        join(ROOT, 'dist/cmd/antctl/main.js'),
        '--kubeconfig',
        lab.kubeconfigPath,
        '-t',
        '60s',
        'packetcapture',
        '-S',
        `${NS}/client`,
        '-D',
        `${NS}/server`,
        '-n',
        '3',
        '-f',
        `tcp,tcp_dst=${PORT},tcp_flags=+syn-ack`,
      ],
      { timeout: 90_000 },
    );
    let done = false;
    void run.finally(() => {
      done = true;
    });
    // SYNs (not SYN-ACKs) from the client to server:8080 until antctl returns: one per connection.
    for (let sport = 44_000; !done && sport < 44_200; sport++) {
      const conn = holdTcpConnection(clientNetns, serverIp, PORT, sport);
      await new Promise((r) => setTimeout(r, 300));
      await conn.close();
    }
    const { stdout } = await run;
    const name = /^PacketCapture Name: (\S+)$/m.exec(stdout)?.[1] ?? '';
    expect(name).toMatch(/^pcap-client-pcap-server-[a-z0-9]{8}$/);
    expect(stdout).toContain('Captured packets: 3\n');
    // Antrea's directory under the agent's temp dir (the lab gives each Node its own TMPDIR); the
    // agents run on this machine, so the file named is readable here.
    const path =
      new RegExp(
        `^Captured packets file: antrea-agent-${N1}:(/\\S+/antrea/packetcapture/packets/${name}\\.pcapng)$`,
        'm',
      ).exec(stdout)?.[1] ?? '';
    expect(path, stdout).not.toBe('');
    const { stdout: listed } = await exec('tcpdump', ['-r', path, '-nn']);
    const lines = listed.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/ > .*\.8080: Flags \[S\],/);
    await lab.kubectl(['delete', 'packetcapture', name]);
    await poll('file removed with the CR', async () => !existsSync(path), { timeoutMs: 30_000 });
  });

  it('reports a timeout when nothing matches, with nothing to upload', async () => {
    await create(
      packetCapture('quiet', {
        source: { pod: { namespace: NS, name: 'client' } },
        destination: { ip: '10.244.250.250' },
        packet: { protocol: 'UDP', transportHeader: { udp: { dstPort: 9 } } },
        captureConfig: { firstN: { number: 3 } },
        timeout: 3,
        fileServer: { url: `sftp://${lab.layout.hostIp}:${sshd.port}${uploadDir}` },
      }),
    );
    const pc = await completed('quiet', 60_000);
    expect(condition(pc, 'PacketCaptureStarted')).toMatchObject({ status: 'True', reason: 'Started' });
    expect(condition(pc, 'PacketCaptureComplete')).toMatchObject({
      reason: 'Timeout',
      message: 'timed out after 3 s: 0 of 3 packets captured',
    });
    expect(condition(pc, 'PacketCaptureFileUploaded')).toBeUndefined();
    expect(pc.status?.numberCaptured).toBe(0);
  });

  it('refuses bad specs with a clear reason: at the API (schema) and on the Node (protocol)', async () => {
    const refused = async (name: string, spec: object) => {
      try {
        await create(packetCapture(name, spec));
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error(`${name} was accepted`);
    };
    const firstN = { firstN: { number: 1 } };
    expect(
      await refused('no-pod', {
        source: { ip: '10.0.0.1' },
        destination: { ip: '10.0.0.2' },
        captureConfig: firstN,
      }),
    ).toContain('set source.pod or destination.pod: the capture runs on the Node of one of them');
    expect(
      await refused('pod-and-ip', {
        source: { pod: { namespace: NS, name: 'client' }, ip: '10.0.0.1' },
        captureConfig: firstN,
      }),
    ).toContain('set pod or ip, not both');
    expect(
      await refused('ftp', {
        source: { pod: { namespace: NS, name: 'client' } },
        captureConfig: firstN,
        fileServer: { url: 'ftp://10.0.0.1/x' },
      }),
    ).toContain('spec.fileServer.url');
    expect(
      await refused('two-headers', {
        source: { pod: { namespace: NS, name: 'client' } },
        captureConfig: firstN,
        packet: { transportHeader: { tcp: { dstPort: 1 }, udp: { dstPort: 2 } } },
      }),
    ).toContain('set at most one of tcp, udp, icmp and icmpv6');
    // The schema takes any protocol string; the capturing agent says which it knows.
    await create(
      packetCapture('bad-protocol', {
        source: { pod: { namespace: NS, name: 'client' } },
        captureConfig: firstN,
        packet: { protocol: 'SCTPX' },
      }),
    );
    const pc = await poll(
      'bad-protocol refused',
      async () => {
        const now = await get('bad-protocol');
        return condition(now, 'PacketCaptureStarted') ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(condition(pc, 'PacketCaptureStarted')).toMatchObject({ status: 'False', reason: 'NotStarted' });
    expect(condition(pc, 'PacketCaptureStarted')?.message).toMatch(
      /^invalid protocol string "SCTPX", supported values are: TCP, UDP, ICMP, ICMPV6/,
    );
  });
});
