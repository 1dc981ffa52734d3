// The Flow Aggregator end to end on the lab (instance 36: lab36-*, its own state dir): 2 Nodes with
// the real antrea-agent binaries, their flow exporters sending over Antrea's default transport (gRPC
// with mutual TLS: the aggregator keeps its CA and the agents' client certificate in Kubernetes and
// the agents read them with their own RBAC, the Roles of build/yamls/flow-aggregator.yml) to a
// flow-aggregator process (dist/cmd/flow-aggregator) on the lab's host address; the aggregator exports to an IPFIX
// collector in this process and writes Antrea's flow log. An inter-Node Pod-to-Pod connection must
// reach the collector only as correlated records (both Pods, both Nodes), a ClusterIP connection
// keeps its Service, the Pods' labels come from the aggregator's Pod informer
// (recordContents.podLabels), and the log has their lines.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, ManagedProcess, makeTempDir, poll, type TempDir } from '@antrea-ts/harness';
import { type DecodedDataRecord, IpfixCollector } from '@antrea-ts/ipfix';
import { Lab } from '@antrea-ts/lab';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  enableFlowExporter,
  type HeldConnection,
  holdTcpConnection,
  startClientServer,
} from './framework/lab-flows.js';
import { e2eLabOptions } from './framework/lab-options.js';

const ROOT = join(import.meta.dirname, '..');
const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const options = e2eLabOptions(36, { logger });
const STATE_DIR = options.stateDir;
const N1 = 'lab36-node-1';
const N2 = 'lab36-node-2';
const NS = 'fa';
const PORT = 8080;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

describe.skipIf(!isRoot)('flow aggregator on the lab', () => {
  let lab: Lab;
  let downstream: IpfixCollector;
  let dir: TempDir;
  let aggregator: ManagedProcess;
  let echo: ManagedProcess;
  let logPath: string;
  let clientIp: string;
  let serverIp: string;
  let clientNetns: string;
  let statsUrl: string;

  /** Aggregated records of connections from `sport`. */
  const recordsFrom = (sport: number): Array<DecodedDataRecord['values']> =>
    downstream.records().flatMap((r) => (r.values.sourceTransportPort === sport ? [r.values] : []));

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/flow-aggregator'],
      { cwd: ROOT },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    dir = makeTempDir('flow-aggregator-e2e');
    downstream = new IpfixCollector({ host: '127.0.0.1', logger });
    const downstreamPort = await downstream.start();
    const ipfixPort = await freePort();
    const grpcPort = await freePort();
    // The aggregator's namespace and Roles, as build/yamls/flow-aggregator.yml has them: the agents
    // may read the CA ConfigMap and the client Secret there (the aggregator runs with admin here).
    const rbac = parseAllDocuments(readFileSync(join(ROOT, 'build/yamls/flow-aggregator.yml'), 'utf8'))
      .map((d) => d.toJS() as { kind: string })
      .filter((o) => ['Namespace', 'Role', 'RoleBinding'].includes(o.kind));
    await lab.kubectl(['apply', '-f', '-'], { input: rbac.map((o) => JSON.stringify(o)).join('\n') });
    const apiPort = await freePort();
    statsUrl = `http://${lab.layout.hostIp}:${apiPort}/stats`;
    logPath = join(dir.path, 'antrea-flows.log');
    const conf = join(dir.path, 'flow-aggregator.conf');
    writeFileSync(
      conf,
      [
        'activeFlowRecordTimeout: 2s',
        'inactiveFlowRecordTimeout: 10s',
        'aggregatorTransportProtocol: tcp',
        // The agents name the aggregator by this address: its server certificate must carry it.
        `flowAggregatorAddress: "${lab.layout.hostIp}"`,
        'recordContents: { podLabels: true }',
        `apiServer: { apiPort: ${apiPort} }`,
        `flowCollector: { enable: true, address: "127.0.0.1:${downstreamPort}:tcp", observationDomainID: 36 }`,
        `flowLogger: { enable: true, path: "${logPath}" }`,
        '',
      ].join('\n'),
    );
    aggregator = new ManagedProcess({
      name: 'flow-aggregator',
      argv: [
        process.execPath,
        join(ROOT, 'dist/cmd/flow-aggregator/main.js'),
        '--config',
        conf,
        '--bind-address',
        lab.layout.hostIp,
        '--ipfix-port',
        String(ipfixPort),
        '--grpc-port',
        String(grpcPort),
        '--kubeconfig',
        join(STATE_DIR, 'kubeconfig'),
      ],
      logFile: join(dir.path, 'flow-aggregator.log'),
    });
    await poll(
      'flow-aggregator ready',
      async () => (await fetch(`http://${lab.layout.hostIp}:${apiPort}/readyz`).catch(() => undefined))?.ok,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    for (const node of [N1, N2]) await enableFlowExporter(lab, node, `${lab.layout.hostIp}:${grpcPort}:grpc`);
    const pods = await startClientServer(lab, {
      namespace: NS,
      clientNode: N1,
      serverNode: N2,
      port: PORT,
      logDir: dir.path,
    });
    clientIp = pods.clientIp;
    serverIp = pods.serverIp;
    clientNetns = pods.clientNetns;
    echo = pods.echo;
  }, 300_000);

  afterAll(async () => {
    await echo?.stop();
    await aggregator?.stop();
    await downstream?.stop();
    dir?.remove();
    await Lab.down(options);
  });

  it('an inter-Node Pod-to-Pod connection reaches the collector as one correlated record with both Pods and Nodes', async () => {
    const sport = 43_001;
    const conn = holdTcpConnection(clientNetns, serverIp, PORT, sport);
    try {
      const rec = await downstream.waitFor(() => recordsFrom(sport)[0], 60_000);
      expect(rec).toMatchObject({
        sourceIPv4Address: clientIp,
        destinationIPv4Address: serverIp,
        destinationTransportPort: PORT,
        protocolIdentifier: 6,
        flowType: 2,
        sourcePodName: 'client',
        sourcePodNamespace: NS,
        sourceNodeName: N1,
        destinationPodName: 'server',
        destinationPodNamespace: NS,
        destinationNodeName: N2,
        // recordContents.podLabels, from the aggregator's Pod informer
        sourcePodLabels: '{"app":"client"}',
        destinationPodLabels: '{"app":"server"}',
      });
      expect(rec.flowEndSecondsFromSourceNode).toBeGreaterThan(0);
      // Both agents' records came over gRPC (one export stream each), none over IPFIX.
      expect(await (await fetch(statsUrl)).json()).toMatchObject({ grpcSessions: 2, sessions: 0 });
      expect(rec.flowEndSecondsFromDestinationNode).toBeGreaterThan(0);
      await conn.close();
      // Both agents report the end; the aggregator passes it on, still merged.
      await downstream.waitFor(() => recordsFrom(sport).find((r) => r.flowEndReason === 3), 60_000);
      // Never a lone half: every record of the connection names both ends.
      for (const r of recordsFrom(sport))
        expect([r.sourcePodName, r.destinationPodName, r.sourceNodeName, r.destinationNodeName]).toEqual([
          'client',
          'server',
          N1,
          N2,
        ]);
      const line = await poll(
        'the flow log line',
        async () =>
          readFileSync(logPath, 'utf8')
            .split('\n')
            .find((l) => l.includes(`,${clientIp},${serverIp},${sport},${PORT},TCP,`)),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(line).toContain(`,client,${NS},${N1},server,${NS},${N2},`);
    } finally {
      conn.kill();
    }
  });

  it('a ClusterIP connection keeps the Service the client’s Node saw', async () => {
    const clusterIp = (
      await lab.kubectl(['get', 'service', 'web', '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])
    ).trim();
    let conn: HeldConnection | undefined;
    let sport = 43_100;
    try {
      // The Service's flows may lag its creation: a new source port per try.
      const rec = await poll(
        'a correlated record of a Service connection',
        async () => {
          conn?.kill();
          sport += 1;
          conn = holdTcpConnection(clientNetns, clusterIp, 80, sport);
          await new Promise((r) => setTimeout(r, 4000));
          return recordsFrom(sport).find((r) => r.destinationPodName === 'server');
        },
        { timeoutMs: 90_000, intervalMs: 100 },
      );
      expect(rec).toMatchObject({
        sourcePodName: 'client',
        sourceNodeName: N1,
        destinationPodName: 'server',
        destinationNodeName: N2,
        destinationIPv4Address: serverIp,
        destinationServicePortName: `${NS}/web:http`,
        destinationServicePort: 80,
        destinationClusterIPv4: clusterIp,
      });
      const line = await poll(
        'the Service connection in the flow log',
        async () =>
          readFileSync(logPath, 'utf8')
            .split('\n')
            .find((l) => l.includes(`,${sport},${PORT},TCP,`)),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(line).toContain(`,server,${NS},${N2},${clusterIp},80,${NS}/web:http,`);
    } finally {
      conn?.kill();
    }
  });
});
