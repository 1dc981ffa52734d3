// Watch fan-out: one change delivered to many watchers, the controller's hot path when a policy
// spans many Nodes. Two cases:
//   in-process  WatchStream + FrameCache into null sockets: the cost of framing and queueing alone.
//   http1/http2 real TLS connections on loopback, JSON frames, until every client has every event
//               (HTTP/2: three watches per connection, like an agent).
//   npm run bench:watch -w @antrea-ts/apiserver [-- --json] [-- --watchers N] [-- --events N]
// --json prints one line per measurement: {"bench","case","metric","value","unit"}.
import { connect as connectHttp2 } from 'node:http2';
import { request } from 'node:https';
import {
  type ApiObject,
  ApiServer,
  FakeClock,
  FrameCache,
  jsonCodec,
  ResourceRegistry,
  SelfSignedCertManager,
  systemClock,
  type WatchSink,
  WatchStream,
} from '@antrea-ts/apiserver';
import { FakeAccessReviewer, FakeTokenReviewer } from '@antrea-ts/apiserver/testing';
import { BenchReport } from '@antrea-ts/harness';
import pino from 'pino';
import { Registry } from 'prom-client';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string, dflt: number) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : dflt;
};
const WATCHERS = arg('watchers', 200);
const EVENTS = arg('events', 500);

const report = new BenchReport('watch-fanout', json);

function policy(i: number): ApiObject {
  // About 1 KiB, the size of a small internal NetworkPolicy in JSON.
  return {
    apiVersion: 'controlplane.antrea.io/v1beta2',
    kind: 'NetworkPolicy',
    metadata: {
      name: `np-${i}`,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(i),
    },
    rules: Array.from({ length: 4 }, (_, r) => ({
      direction: 'In',
      from: { addressGroups: [`ag-${i}-${r}`] },
      services: [{ protocol: 'TCP', port: 8080 + r }],
      priority: r,
    })),
    appliedToGroups: [`atg-${i}`],
    sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: `np-${i}`, uid: `uid-${i}` },
  };
}

function inProcess(): void {
  const frames = new FrameCache();
  const sink = { write: () => true, once: () => undefined, end: () => undefined, destroy: () => undefined };
  const streams = Array.from({ length: WATCHERS }, () => new WatchStream(sink, { clock: systemClock }));
  const t0 = process.hrtime.bigint();
  for (let e = 0; e < EVENTS; e++) {
    const obj = policy(e);
    for (const s of streams) s.send(frames.frame(jsonCodec, 'MODIFIED', obj));
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = `in-process w=${WATCHERS}`;
  report.record(c, 'deliveries_per_second', (WATCHERS * EVENTS) / s, 'ops/s');
  report.record(c, 'encodes', frames.stats.misses, 'count');
}

async function overTls(protocol: 'http1' | 'http2'): Promise<void> {
  const logger = pino({ level: 'silent' });
  const certs = new SelfSignedCertManager({ logger, clock: new FakeClock(Date.now()), dnsNames: ['antrea'] });
  const registry = new ResourceRegistry();
  const sinks: WatchSink[] = [];
  registry.register('controlplane.antrea.io', 'v1beta2', {
    name: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: false,
    verbs: ['watch'],
    handler: {
      watch(_req, sink) {
        sinks.push(sink);
        return undefined;
      },
    },
  });
  const server = new ApiServer({
    logger,
    registry,
    certificates: certs,
    tokenReviewer: new FakeTokenReviewer(new Map([['t', { username: 'agent', groups: [] }]])),
    accessReviewer: new FakeAccessReviewer(() => true),
    metricsRegistry: new Registry(),
    host: '127.0.0.1',
    port: 0,
    watch: { limits: { maxQueuedFrames: EVENTS + 10, maxQueuedBytes: 1 << 30 } },
  });
  await server.start();
  let received = 0;
  let bytes = 0;
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const target = WATCHERS * EVENTS;
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    for (const b of chunk) if (b === 0x0a) received++;
    if (received === target) allDone();
  };
  const path = '/apis/controlplane.antrea.io/v1beta2/networkpolicies?watch=1';
  const sessions: ReturnType<typeof connectHttp2>[] = [];
  for (let w = 0; w < WATCHERS; w++) {
    if (protocol === 'http2') {
      // Three watches per connection, like an agent (policies, address groups, applied-to groups).
      if (w % 3 === 0) {
        sessions.push(
          connectHttp2(`https://127.0.0.1:${server.address.port}`, {
            ca: certs.current().caBundlePem,
            servername: 'antrea',
          }),
        );
      }
      const stream = sessions.at(-1)!.request({ ':path': path, authorization: 'Bearer t' });
      stream.on('data', onData);
      stream.end();
      continue;
    }
    request(
      {
        host: '127.0.0.1',
        port: server.address.port,
        path,
        servername: 'antrea',
        ca: certs.current().caBundlePem,
        agent: false,
        headers: { authorization: 'Bearer t' },
      },
      (res) => res.on('data', onData),
    ).end();
  }
  while (sinks.length < WATCHERS) await new Promise((r) => setTimeout(r, 10));
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = process.hrtime.bigint();
  for (let e = 0; e < EVENTS; e++) {
    const obj = policy(e);
    for (const s of sinks) s.send('MODIFIED', obj);
    // Let sockets drain between changes, as a store emitting over time would.
    if (e % 50 === 49) await new Promise((r) => setImmediate(r));
  }
  await done;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = `${protocol} w=${WATCHERS}`;
  report.record(c, 'deliveries_per_second', target / s, 'ops/s');
  report.record(c, 'throughput', bytes / s / 1e6, 'MB/s');
  report.record(c, 'heap_growth', (process.memoryUsage().heapUsed - heapBefore) / 1e6, 'MB');
  for (const session of sessions) session.close();
  await server.stop();
}

inProcess();
await overTls('http1');
await overTls('http2');
report.finish(`Watch fan-out, ${WATCHERS} watchers x ${EVENTS} events`);
