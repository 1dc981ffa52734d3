// bench:flow-aggregator — how many agent records per second the Flow Aggregator takes in and
// exports, on this machine:
//   aggregate: the aggregation alone (both halves of N inter-Node connections in, expiry out),
//   end-to-end: two agent exporting processes send both halves over TCP on loopback; the
//     aggregator correlates them and exports one record per connection over TCP to a collector
//     that discards the bytes, and writes the flow log to a temp file.
//   end-to-end grpc: the same, the agents sending over Antrea's default transport instead (gRPC
//     FlowExportService with mutual TLS, 64 flows per ExportRequest as the agent's export rounds).
//   end-to-end tls: the same over IPFIX inside mutual TLS (Antrea's `tls` transport).
// Records/s counts agent records in (two per connection); CPU is this process's (user + system).
//
//   npm run bench:flow-aggregator -w @antrea-ts/flow-aggregator [-- --json] [-- --connections 10000,50000] [-- --rounds 3]
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AggregationProcess,
  agentRecord,
  createFlowAggregatorCa,
  FlowAggregator,
  FlowType,
  type FlowValues,
  IpfixFlowExporter,
  issueLeaf,
  LogExporter,
  templateValues,
} from '@antrea-ts/flow-aggregator';
import { BenchReport, percentile } from '@antrea-ts/harness';
import { ANTREA_AGENT_IPV4_TEMPLATE, GrpcFlowExporter, IpfixExporter } from '@antrea-ts/ipfix';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string): string | undefined =>
  argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined;
const sizes = (arg('--connections') ?? '10000,50000').split(',').map(Number);
const rounds = Number(arg('--rounds') ?? 3);
const bench = new BenchReport('flow-aggregator', json);
const logger = pino({ level: 'silent' });
const AGENT_TEMPLATE = ANTREA_AGENT_IPV4_TEMPLATE;

/** Both Nodes' halves of `n` inter-Node connections. */
function halves(n: number): { source: FlowValues[]; destination: FlowValues[] } {
  const source: FlowValues[] = [];
  const destination: FlowValues[] = [];
  for (let i = 0; i < n; i++) {
    const spec = {
      src: `10.10.${(i >> 8) & 255}.${i & 255}`,
      dst: `10.11.${(i >> 12) & 255}.${(i >> 4) & 255}`,
      sport: 10_000 + (i % 50_000),
      dport: 80 + (i % 16),
      start: 1000,
      end: 1005,
      octets: 5000n,
      packets: 50n,
      flowType: FlowType.InterNode,
    };
    source.push(
      agentRecord({ ...spec, srcPod: { name: `client-${i % 500}`, namespace: 'ns', node: 'node-1' } }),
    );
    destination.push(
      agentRecord({ ...spec, dstPod: { name: `server-${i % 500}`, namespace: 'ns', node: 'node-2' } }),
    );
  }
  return { source, destination };
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function aggregateOnly(n: number): { wallMs: number; cpuMs: number } {
  const { source, destination } = halves(n);
  const agg = new AggregationProcess({ activeTimeoutMs: 60_000, inactiveTimeoutMs: 90_000, logger });
  let out = 0;
  const t0 = performance.now();
  const c0 = cpuMs();
  for (const r of source) agg.add(r);
  for (const r of destination) agg.add(r);
  agg.expire(() => {
    out++;
  });
  const result = { wallMs: performance.now() - t0, cpuMs: cpuMs() - c0 };
  if (out !== n) throw new Error(`aggregate: ${out} records out for ${n} connections`);
  return result;
}

/** The agent's export round size (flow-exporter.ts MAX_PER_ROUND): one ExportRequest each. */
const GRPC_BATCH = 64;

/** Certificates as the aggregator's provider issues them, made once. */
const ca = createFlowAggregatorCa(Date.now());
const serverTls = { caPem: ca.certPem, ...issueLeaf(ca, 'server', Date.now(), ['127.0.0.1']) };
const clientTls = { caPem: ca.certPem, ...issueLeaf(ca, 'client', Date.now()), serverName: '127.0.0.1' };

/** One agent's session: sends its records, resolves when written. */
type AgentSession = { send(records: readonly FlowValues[]): Promise<void>; close(): void };

async function ipfixAgent(port: number, domainId: number, transport: 'tcp' | 'tls'): Promise<AgentSession> {
  const e = new IpfixExporter({
    host: '127.0.0.1',
    port,
    transport,
    ...(transport === 'tls' ? { tls: clientTls } : {}),
    domainId,
    templates: [AGENT_TEMPLATE],
    logger,
  });
  await e.connect();
  return {
    send: async (records) => {
      await e.send(
        AGENT_TEMPLATE,
        records.map((r) => templateValues(AGENT_TEMPLATE, r)),
      );
    },
    close: () => e.close(),
  };
}

async function grpcAgent(port: number, domainId: number): Promise<AgentSession> {
  const e = new GrpcFlowExporter({ host: '127.0.0.1', port, tls: clientTls, domainId, logger });
  await e.connect();
  return {
    send: async (records) => {
      for (let i = 0; i < records.length; i += GRPC_BATCH) await e.send(records.slice(i, i + GRPC_BATCH));
    },
    close: () => e.close(),
  };
}

async function endToEnd(
  n: number,
  transport: 'tcp' | 'tls' | 'grpc',
): Promise<{ wallMs: number; cpuMs: number }> {
  const { source, destination } = halves(n);
  const sink = net.createServer((s) => s.resume());
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
  const dir = mkdtempSync(join(tmpdir(), 'fa-bench-'));
  const fa = new FlowAggregator({
    host: '127.0.0.1',
    port: 0,
    transports: transport === 'grpc' ? [] : [transport],
    tls: serverTls,
    ...(transport === 'grpc' ? { grpcPort: 0 } : {}),
    activeTimeoutMs: 60_000,
    inactiveTimeoutMs: 90_000,
    expiryIntervalMs: 100,
    logger,
    exporters: [
      new IpfixFlowExporter({
        host: '127.0.0.1',
        port: (sink.address() as net.AddressInfo).port,
        transport: 'tcp',
        observationDomainId: 1,
        templateRefreshMs: 600_000,
        maxMessageBytes: 0,
        podLabels: false,
        logger,
      }),
      new LogExporter({
        path: join(dir, 'flows.log'),
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
  const agents = await Promise.all(
    [1, 2].map((domainId) =>
      transport === 'grpc' ? grpcAgent(fa.grpcPort, domainId) : ipfixAgent(fa.port, domainId, transport),
    ),
  );
  const t0 = performance.now();
  const c0 = cpuMs();
  await Promise.all(agents.map((a, i) => a.send([source, destination][i]!)));
  while (fa.stats().exported < n) await new Promise((r) => setTimeout(r, 5));
  const result = { wallMs: performance.now() - t0, cpuMs: cpuMs() - c0 };
  for (const a of agents) a.close();
  await fa.stop();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
  return result;
}

for (const n of sizes) {
  for (const [name, run] of [
    ['aggregate', async (k: number) => aggregateOnly(k)],
    ['end-to-end', (k: number) => endToEnd(k, 'tcp')],
    ['end-to-end tls', (k: number) => endToEnd(k, 'tls')],
    ['end-to-end grpc', (k: number) => endToEnd(k, 'grpc')],
  ] as const) {
    const rates: number[] = [];
    const cpuPerRecord: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const r = await run(n);
      rates.push((2 * n) / (r.wallMs / 1000));
      cpuPerRecord.push((r.cpuMs * 1000) / (2 * n));
    }
    const c = `${name} ${n} connections`;
    bench.record(c, 'records/s p50', percentile(rates, 50), 'records/s');
    bench.record(c, 'records/s min', Math.min(...rates), 'records/s');
    bench.record(c, 'CPU per record p50', percentile(cpuPerRecord, 50), 'µs');
  }
}
bench.finish();
