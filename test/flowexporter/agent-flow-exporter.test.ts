// The flow exporter on a real Node: an in-process agent on a netns Node with userspace OVS (netdev
// datapath), two Pods wired through antrea-cni, a TCP connection between them, and the records an
// IPFIX collector receives: addresses, ports, protocol, Pods, Node, flow type, the counters
// conntrack has (none on the userspace datapath, see packages/agent/README.md "Flow exporter"),
// the idle export and the end of the connection.
import { spawn } from 'node:child_process';
import { ExecCommandRunner, flowExporterConfig, ovsConntrackDump, vswitchdAppctl } from '@antrea-ts/agent';
import { CT_ZONE } from '@antrea-ts/apis';
import {
  createUnderlay,
  type KubeCluster,
  ManagedProcess,
  startKube,
  type Underlay,
  waitFor,
} from '@antrea-ts/harness';
import { type DecodedDataRecord, IpfixCollector } from '@antrea-ts/ipfix';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addPod,
  buildCniPlugin,
  createLabNode,
  deleteLabNode,
  deletePod,
  type LabNode,
  type LabPod,
  startAgent,
} from '../agent/lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const SERVER_PORT = 8080;
const CLIENT_PORT = 41_234;
const SENT = 64 * 1024;
const IDLE_MS = 4000;

describe('flow exporter on a userspace OVS Node', () => {
  let kube: KubeCluster;
  let underlay: Underlay;
  let n: LabNode;
  let client: LabPod;
  let server: LabPod;
  let collector: IpfixCollector;
  let echo: ManagedProcess | undefined;
  let dump: () => Promise<string>;

  const records = (): Array<DecodedDataRecord['values']> =>
    collector
      .records()
      .map((r) => r.values)
      .filter((v) => v.sourceTransportPort === CLIENT_PORT && v.destinationTransportPort === SERVER_PORT);

  beforeAll(async () => {
    await buildCniPlugin();
    kube = await startKube({ logger });
    underlay = await createUnderlay();
    collector = new IpfixCollector({ host: '127.0.0.1', logger });
    const port = await collector.start();
    n = await createLabNode({
      kube,
      underlay,
      name: 'fe',
      podCidr: '10.247.3.0/24',
      logger,
      config: {
        flowExporter: flowExporterConfig(
          {
            enable: true,
            flowCollectorAddr: `127.0.0.1:${port}:tcp`,
            flowPollInterval: '1s',
            activeFlowExportTimeout: '2s',
            idleFlowExportTimeout: `${IDLE_MS}ms`,
          },
          true,
        ),
      },
    });
    dump = ovsConntrackDump(vswitchdAppctl(new ExecCommandRunner(), n.node.ovs.runDir), CT_ZONE);
    await startAgent(n, kube, logger, { conntrackDump: dump });
    client = await addPod(n, 'fe-client');
    server = await addPod(n, 'fe-server');
    echo = new ManagedProcess({
      name: 'echo-server',
      netns: server.netns.name,
      argv: ['socat', `TCP-LISTEN:${SERVER_PORT},fork,reuseaddr`, 'EXEC:cat'],
      logFile: `${n.dir.path}/echo.log`,
    });
    await waitFor(
      'the echo server listening',
      async () => (await server.netns.exec(['ss', '-Htln', `sport = :${SERVER_PORT}`])).trim() !== '',
    );
  });

  afterAll(async () => {
    await echo?.stop();
    if (client) await deletePod(client);
    if (server) await deletePod(server);
    if (n) await deleteLabNode(n);
    await collector?.stop();
    await underlay?.delete();
    await kube?.stop();
  });

  it('exports a Pod-to-Pod TCP connection, its idle record, and its end', async () => {
    expect(n.agent!.flowExporterStats).toBeDefined();
    // A client that sends 64 KiB, then holds the connection open (stdin open) until told to end.
    const socat = spawn(
      'ip',
      [
        'netns',
        'exec',
        client.netns.name,
        'socat',
        '-',
        `TCP:${server.ip}:${SERVER_PORT},sourceport=${CLIENT_PORT}`,
      ],
      { stdio: ['pipe', 'ignore', 'ignore'] },
    );
    const exited = new Promise((resolve) => socat.once('exit', resolve));
    try {
      socat.stdin.write(Buffer.alloc(SENT, 0x61));

      // 1. The first record: an active-timeout export of the new connection.
      const first = await collector.waitFor(() => records()[0], 30_000);
      expect(first).toMatchObject({
        sourceIPv4Address: client.ip,
        destinationIPv4Address: server.ip,
        sourceTransportPort: CLIENT_PORT,
        destinationTransportPort: SERVER_PORT,
        protocolIdentifier: 6,
        sourcePodName: 'fe-client',
        sourcePodNamespace: 'default',
        destinationPodName: 'fe-server',
        destinationPodNamespace: 'default',
        sourceNodeName: n.name,
        destinationNodeName: n.name,
        flowType: 1, // intra-Node
        tcpState: 'ESTABLISHED',
        destinationServicePortName: '',
        destinationClusterIPv4: '0.0.0.0',
      });
      expect(first.flowEndReason).toBe(2);

      // 2. Quiet from here: one more record, for the idle timeout, then nothing while it stays idle.
      const idle = await collector.waitFor(() => records().find((r) => r.flowEndReason === 1), 30_000);
      expect(idle.tcpState).toBe('ESTABLISHED');
      const afterIdle = records().length;
      await new Promise((r) => setTimeout(r, 3 * IDLE_MS));
      expect(records()).toHaveLength(afterIdle);

      // Counters: the deltas add up to the totals; they carry the bytes sent when conntrack counts
      // them (kernel datapath). OVS's userspace conntrack keeps no counters: all zero here, and
      // the dump says so (no packets= in the entry).
      const entry = (await dump()).split('\n').find((l) => l.includes(`sport=${CLIENT_PORT},`)) ?? '';
      expect(entry).toContain(`dst=${server.ip}`);
      const all = records();
      const sum = (k: string) => all.reduce((a, r) => a + (r[k] as bigint), 0n);
      const last = all[all.length - 1]!;
      expect(sum('octetDeltaCount')).toBe(last.octetTotalCount);
      expect(sum('reversePacketDeltaCount')).toBe(last.reversePacketTotalCount);
      if (/packets=/.test(entry)) expect(last.octetTotalCount as bigint).toBeGreaterThanOrEqual(BigInt(SENT));
      else expect(last.octetTotalCount).toBe(0n);

      // 3. The client closes: the state change brings one end-of-flow record, then nothing more.
      socat.stdin.end();
      await exited;
      const end = await collector.waitFor(() => records().find((r) => r.flowEndReason === 3), 30_000);
      expect(['TIME_WAIT', 'CLOSE']).toContain(end.tcpState);
      const afterEnd = records().length;
      // Once conntrack forgets the connection, the store drops it.
      await waitFor(
        'the connection gone from the store',
        async () => {
          await new ExecCommandRunner().run([
            'ovs-appctl',
            '-t',
            `${n.node.ovs.runDir}/ovs-vswitchd.ctl`,
            'dpctl/flush-conntrack',
            `zone=${CT_ZONE}`,
          ]);
          return n.agent!.flowExporterStats!.connections === 0;
        },
        30_000,
        1000,
      );
      await new Promise((r) => setTimeout(r, 2 * IDLE_MS));
      expect(records()).toHaveLength(afterEnd);
      expect(n.agent!.flowExporterStats!.reconnections).toBe(1);
    } finally {
      socat.kill();
    }
  });
});
