// The flow exporter end to end on the lab (instance 35: lab35-*, its own state dir): 2 Nodes with the
// real antrea-agent binaries (featureGates.FlowExporter and flowExporter.enable in their
// antrea-agent.conf), userspace OVS, conntrack read through ovs-appctl as antrea-agent does. An
// IPFIX collector in this process, on the lab's host address, receives both Nodes' records of a TCP
// connection from a Pod on Node 1 to a Pod on Node 2, directly and through a ClusterIP Service.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { observationDomainId } from '@antrea-ts/agent';
import { type ManagedProcess, makeTempDir, poll, type TempDir } from '@antrea-ts/harness';
import { type DecodedDataRecord, IpfixCollector } from '@antrea-ts/ipfix';
import { Lab } from '@antrea-ts/lab';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enableFlowExporter,
  type HeldConnection,
  holdTcpConnection,
  startClientServer,
} from './framework/lab-flows.js';
import { e2eLabOptions } from './framework/lab-options.js';

const ROOT = join(import.meta.dirname, '..');
const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const options = e2eLabOptions(35, { logger });
const N1 = 'lab35-node-1';
const N2 = 'lab35-node-2';
const NS = 'flows';
const PORT = 8080;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

describe.skipIf(!isRoot)('flow exporter on the lab', () => {
  let lab: Lab;
  let collector: IpfixCollector;
  let dir: TempDir;
  let echo: ManagedProcess;
  let clientIp: string;
  let serverIp: string;
  let clientNetns: string;

  /** Records of one Node (by its observation domain) for connections from `sport`. */
  const recordsOf = (node: string, sport: number): Array<DecodedDataRecord['values']> =>
    collector.messages
      .filter((m) => m.message.domainId === observationDomainId(node))
      .flatMap((m) => m.message.records.map((r) => r.values))
      .filter((v) => v.sourceTransportPort === sport);

  const holdConnection = (host: string, port: number, sport: number): HeldConnection =>
    holdTcpConnection(clientNetns, host, port, sport);

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    collector = new IpfixCollector({ host: lab.layout.hostIp, logger });
    const port = await collector.start();
    for (const node of [N1, N2]) await enableFlowExporter(lab, node, `${lab.layout.hostIp}:${port}:tcp`);
    dir = makeTempDir('flowexporter-e2e');
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
    await collector?.stop();
    dir?.remove();
    await Lab.down(options);
  });

  it('both Nodes export an inter-Node connection, each naming its own Pod and Node, then its end', async () => {
    const sport = 42_001;
    const conn = holdConnection(serverIp, PORT, sport);
    try {
      const src = await collector.waitFor(() => recordsOf(N1, sport)[0], 60_000);
      const dst = await collector.waitFor(() => recordsOf(N2, sport)[0], 60_000);
      const common = {
        sourceIPv4Address: clientIp,
        destinationIPv4Address: serverIp,
        sourceTransportPort: sport,
        destinationTransportPort: PORT,
        protocolIdentifier: 6,
        flowType: 2, // inter-Node
        tcpState: 'ESTABLISHED',
      };
      expect(src).toMatchObject({
        ...common,
        sourcePodName: 'client',
        sourcePodNamespace: NS,
        sourceNodeName: N1,
        destinationPodName: '',
        destinationNodeName: '',
      });
      expect(dst).toMatchObject({
        ...common,
        sourcePodName: '',
        sourceNodeName: '',
        destinationPodName: 'server',
        destinationPodNamespace: NS,
        destinationNodeName: N2,
      });
      await conn.close();
      for (const node of [N1, N2]) {
        const end = await collector.waitFor(
          () => recordsOf(node, sport).find((r) => r.flowEndReason === 3),
          60_000,
        );
        expect(['TIME_WAIT', 'CLOSE']).toContain(end.tcpState);
      }
    } finally {
      conn.kill();
    }
  });

  it('a connection to a ClusterIP is named by its Service on the client’s Node', async () => {
    const clusterIp = (
      await lab.kubectl(['get', 'service', 'web', '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])
    ).trim();
    const sport = 42_002;
    // The Service's flows may lag its creation: retry until one connection holds.
    let conn: HeldConnection | undefined;
    try {
      await poll(
        'a connection through the Service',
        async () => {
          conn?.kill();
          conn = holdConnection(clusterIp, 80, sport);
          await new Promise((r) => setTimeout(r, 3000));
          return recordsOf(N1, sport).length > 0;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const rec = recordsOf(N1, sport)[0]!;
      expect(rec).toMatchObject({
        sourceIPv4Address: clientIp,
        sourcePodName: 'client',
        destinationIPv4Address: serverIp,
        destinationTransportPort: PORT,
        destinationServicePortName: `${NS}/web:http`,
        destinationServicePort: 80,
        destinationClusterIPv4: clusterIp,
        destinationServiceIPv4: clusterIp,
        flowType: 2,
      });
    } finally {
      conn?.kill();
    }
  });

  it('a connection a NetworkPolicy allowed names the policy (ct_label) on the server’s Node', async () => {
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'allow-client', namespace: NS },
        spec: {
          podSelector: { matchLabels: { app: 'server' } },
          policyTypes: ['Ingress'],
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: PORT }] }],
        },
      }),
    });
    const sport = 42_003;
    let conn: HeldConnection | undefined;
    try {
      // Until the policy is realized on Node 2 the connection has no label: retry on a new port each time.
      let port = sport;
      const named = await poll(
        'a record naming the policy',
        async () => {
          conn?.kill();
          port += 1;
          conn = holdConnection(serverIp, PORT, port);
          await new Promise((r) => setTimeout(r, 3500));
          return recordsOf(N2, port).find((r) => r.ingressNetworkPolicyName === 'allow-client');
        },
        { timeoutMs: 90_000, intervalMs: 100 },
      );
      expect(named).toMatchObject({
        sourcePodName: '',
        destinationPodName: 'server',
        ingressNetworkPolicyName: 'allow-client',
        ingressNetworkPolicyNamespace: NS,
        ingressNetworkPolicyType: 1, // K8s NetworkPolicy
        ingressNetworkPolicyRuleAction: 1, // Allow
        egressNetworkPolicyName: '',
        egressNetworkPolicyRuleAction: 0,
      });
    } finally {
      conn?.kill();
      await lab.kubectl(['delete', 'networkpolicy', 'allow-client', '-n', NS]);
    }
  });
});
