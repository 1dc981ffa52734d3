import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANTREA_AGENT_IPV4_TEMPLATE, IpfixCollector, IpfixExporter } from '@antrea-ts/ipfix';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { templateValues } from './exporter/aggregated-template.js';
import { IpfixFlowExporter } from './exporter/ipfix-exporter.js';
import { LogExporter } from './exporter/log-exporter.js';
import { FlowAggregator } from './flow-aggregator.js';
import { FlowType, type FlowValues } from './flow-record.js';
import { agentRecord } from './testing-records.js';

const logger = pino({ level: 'silent' });
const AGENT_TEMPLATE = ANTREA_AGENT_IPV4_TEMPLATE;
const tuple = { src: '10.10.0.2', dst: '10.10.1.3', sport: 40000, dport: 8080, start: 100, end: 104 };

describe('FlowAggregator over loopback', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** One agent's exporting process sends `record` to the aggregator's collecting process. */
  const sendAsAgent = async (
    port: number,
    transport: 'tcp' | 'udp',
    domainId: number,
    record: FlowValues,
  ): Promise<void> => {
    const exporter = new IpfixExporter({
      host: '127.0.0.1',
      port,
      transport,
      domainId,
      templates: [AGENT_TEMPLATE],
      logger,
    });
    await exporter.connect();
    cleanup.push(() => exporter.close());
    await exporter.send(AGENT_TEMPLATE, [templateValues(AGENT_TEMPLATE, record)]);
  };

  it('correlates one Node’s TCP half with the other’s UDP half and exports one record by IPFIX and to the log', async () => {
    const downstream = new IpfixCollector({ host: '127.0.0.1', logger });
    const downstreamPort = await downstream.start();
    cleanup.push(() => downstream.stop());
    const dir = mkdtempSync(join(tmpdir(), 'fa-unit-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const logPath = join(dir, 'flows.log');
    const fa = new FlowAggregator({
      host: '127.0.0.1',
      port: 0,
      transports: ['tcp', 'udp'],
      activeTimeoutMs: 60_000,
      inactiveTimeoutMs: 90_000,
      expiryIntervalMs: 50,
      logger,
      exporters: [
        new IpfixFlowExporter({
          host: '127.0.0.1',
          port: downstreamPort,
          transport: 'tcp',
          observationDomainId: 7,
          templateRefreshMs: 600_000,
          maxMessageBytes: 0,
          podLabels: false,
          logger,
        }),
        new LogExporter({
          path: logPath,
          maxSizeMb: 100,
          maxBackups: 3,
          compress: false,
          prettyPrint: true,
          filters: [],
          logger,
        }),
      ],
    });
    await fa.start();
    cleanup.push(() => fa.stop());
    const agents = [
      {
        transport: 'tcp' as const,
        record: agentRecord({
          ...tuple,
          flowType: FlowType.InterNode,
          octets: 300n,
          srcPod: { name: 'client', namespace: 'ns', node: 'node-1' },
        }),
      },
      {
        transport: 'udp' as const,
        record: agentRecord({
          ...tuple,
          flowType: FlowType.InterNode,
          octets: 300n,
          dstPod: { name: 'server', namespace: 'ns', node: 'node-2' },
        }),
      },
    ];
    for (const [i, a] of agents.entries()) await sendAsAgent(fa.port, a.transport, i + 1, a.record);
    const got = await downstream.waitFor(() => downstream.records()[0], 10_000);
    expect(got.values).toMatchObject({
      sourcePodName: 'client',
      sourceNodeName: 'node-1',
      destinationPodName: 'server',
      destinationNodeName: 'node-2',
      octetTotalCountFromSourceNode: 300n,
      octetTotalCountFromDestinationNode: 300n,
      flowEndSecondsFromSourceNode: 104,
      flowEndSecondsFromDestinationNode: 104,
      throughput: 600n,
    });
    expect(downstream.messages.find((m) => m.message.records.length)?.message.domainId).toBe(7);
    await fa.flush();
    expect(readFileSync(logPath, 'utf8')).toBe(
      '100,104,10.10.0.2,10.10.1.3,40000,8080,TCP,client,ns,node-1,server,ns,node-2,0.0.0.0,0,,,,,,,,,,,,,,,,\n',
    );
    expect(fa.stats()).toMatchObject({ recordsIn: 2, correlated: 1, exported: 1, decodeErrors: 0 });
    expect(downstream.records()).toHaveLength(1);
  });

  it('goes on collecting and logging while the flow collector is down, and reconnects to it', async () => {
    // A port with no collector behind it, taken again below.
    const probe = new IpfixCollector({ host: '127.0.0.1', logger });
    const downstreamPort = await probe.start();
    await probe.stop();
    const dir = mkdtempSync(join(tmpdir(), 'fa-unit-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const logPath = join(dir, 'flows.log');
    const ipfix = new IpfixFlowExporter({
      host: '127.0.0.1',
      port: downstreamPort,
      transport: 'tcp',
      observationDomainId: 7,
      templateRefreshMs: 600_000,
      maxMessageBytes: 0,
      podLabels: false,
      logger,
    });
    const log = new LogExporter({
      path: logPath,
      maxSizeMb: 100,
      maxBackups: 3,
      compress: false,
      prettyPrint: false,
      filters: [],
      logger,
    });
    const fa = new FlowAggregator({
      host: '127.0.0.1',
      port: 0,
      transports: ['tcp'],
      activeTimeoutMs: 60_000,
      inactiveTimeoutMs: 90_000,
      expiryIntervalMs: 50,
      logger,
      exporters: [ipfix, log],
    });
    await fa.start();
    cleanup.push(() => fa.stop());
    expect(fa.ready).toBe(true);
    const intra = (sport: number): FlowValues =>
      agentRecord({
        ...tuple,
        sport,
        flowType: FlowType.IntraNode,
        octets: 100n,
        srcPod: { name: 'a', namespace: 'ns', node: 'node-1' },
        dstPod: { name: 'b', namespace: 'ns', node: 'node-1' },
      });

    await sendAsAgent(fa.port, 'tcp', 1, intra(41_001));
    await vi.waitFor(() => expect(fa.stats().exported).toBe(1), { timeout: 10_000 });
    expect(ipfix.dropped).toBe(1);
    expect(ipfix.sent).toBe(0);
    expect(readFileSync(logPath, 'utf8')).toContain(',41001,8080,6,a,ns,node-1,b,ns,node-1,');

    const downstream = new IpfixCollector({ host: '127.0.0.1', port: downstreamPort, logger });
    await downstream.start();
    cleanup.push(() => downstream.stop());
    await sendAsAgent(fa.port, 'tcp', 2, intra(41_002));
    const got = await downstream.waitFor(() => downstream.records()[0], 10_000);
    expect(got.values).toMatchObject({ sourceTransportPort: 41_002, sourcePodName: 'a' });
    expect(ipfix.sent).toBe(1);
    expect(fa.stats()).toMatchObject({ recordsIn: 2, exported: 2 });
    expect(readFileSync(logPath, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });
});

describe('LogExporter', () => {
  it('rotates past maxSize, compresses, and keeps maxBackups files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fa-log-'));
    try {
      let now = Date.parse('2026-01-02T03:04:05.000Z');
      const log = new LogExporter({
        path: join(dir, 'antrea-flows.log'),
        maxSizeMb: 0.0001, // ~104 bytes: one line per file
        maxBackups: 2,
        compress: true,
        prettyPrint: false,
        filters: [{ egressNetworkPolicyRuleActions: ['None'] }],
        logger,
        now: () => now,
      });
      await log.start();
      const r = agentRecord({ ...tuple, flowType: FlowType.IntraNode });
      for (let i = 0; i < 4; i++) {
        await log.export([r, { ...r, egressNetworkPolicyRuleAction: 2 }]); // the second is filtered out
        now += 1000;
      }
      const files = readdirSync(dir).sort();
      expect(files).toEqual([
        'antrea-flows-2026-01-02T03-04-07.000.log.gz',
        'antrea-flows-2026-01-02T03-04-08.000.log.gz',
        'antrea-flows.log',
      ]);
      expect(readFileSync(join(dir, 'antrea-flows.log'), 'utf8').split('\n')[0]).toMatch(/^100,104,.*,6,/);
      expect(log.written).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
