// bench:proxier — how long AntreaProxy's proxier takes to put Services on a real (userspace)
// ovs-vswitchd through FlowCache: the first sync of N service ports (model, flows, groups, one
// bundle), then single-endpoint changes among them (one group modify + flow diff each), R times;
// for each N of --services, on a fresh switch. Services are fed by hand (no kube-apiserver), so
// this measures the proxier and the switch only. Needs root and OVS, like the integration tests
// (harness ats-* names).
//   tsc -b test && node dist/test/proxy/bench-proxier.js [--json] [--services 500,2000,5000] [--rounds 20]
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  FlowCache,
  OfConnection,
  Pipeline,
  Proxier,
  pipelineFlows,
  type ServiceHandlers,
  type ServiceSource,
} from '@antrea-ts/agent';
import { BenchReport, startPodBed } from '@antrea-ts/harness';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const SIZES = arg('--services', '500,2000,5000').split(',').map(Number);
const ROUNDS = Number(arg('--rounds', '20'));
const ENDPOINTS = 3;
const logger = pino({ level: 'silent' });
const report = new BenchReport('proxier', json);

const svc = (i: number): V1Service => ({
  metadata: { namespace: 'bench', name: `s${i}` },
  spec: {
    type: 'ClusterIP',
    clusterIP: `10.96.${i >> 8}.${i & 255}`,
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  },
});
const slice = (i: number, extra: number): V1EndpointSlice => ({
  metadata: { namespace: 'bench', name: `s${i}-x`, labels: { 'kubernetes.io/service-name': `s${i}` } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: Array.from({ length: ENDPOINTS + extra }, (_, k) => ({
    addresses: [`10.10.${k}.${(i % 250) + 2}`],
    conditions: { ready: true },
  })),
});

/** Hands the proxier N Services with their slices as the initial lists. */
class BenchSource implements ServiceSource {
  handlers: ServiceHandlers | undefined;
  constructor(private readonly services: number) {}
  async start(h: ServiceHandlers): Promise<void> {
    this.handlers = h;
    for (let i = 0; i < this.services; i++) {
      h.upsertService(svc(i));
      h.upsertSlice(slice(i, 0));
    }
    h.synced();
  }
  async stop(): Promise<void> {}
}

async function measure(services: number): Promise<void> {
  const bed = await startPodBed({
    bridge: 'br-int',
    protocols: ['OpenFlow10', 'OpenFlow15'],
    pods: [],
    logger,
  });
  const conn = new OfConnection({ socketPath: bed.ovs.bridgeMgmtSocket('br-int'), logger });
  let proxier: Proxier | undefined;
  try {
    conn.start();
    await conn.waitConnected(10_000);
    const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
    const flows = new FlowCache(conn, logger);
    await flows.replace('pipeline', pipelineFlows(ctx));
    const source = new BenchSource(services);
    proxier = new Proxier({
      nodeName: 'n',
      source,
      flows,
      ctx,
      logger,
      // The userspace datapath's groups, as the lab's agents write them.
      endpointSelection: 'fiveTuple',
    });
    const ports = `${services} service ports x ${ENDPOINTS} endpoints`;
    let t = performance.now();
    await proxier.start();
    report.record(ports, 'first sync', performance.now() - t, 'ms');
    report.record(ports, 'flows installed', flows.size, 'flows');
    const samples: number[] = [];
    const scaledUp = new Set<number>();
    for (let r = 0; r < ROUNDS; r++) {
      // Service r gets a 4th endpoint, or loses it when the rounds wrap around.
      const i = r % services;
      const extra = scaledUp.has(i) ? 0 : 1;
      if (extra) scaledUp.add(i);
      else scaledUp.delete(i);
      t = performance.now();
      source.handlers?.upsertSlice(slice(i, extra));
      await proxier.idle();
      samples.push(performance.now() - t);
    }
    report.recordPercentiles(
      `${services} ports: one endpoint added or removed`,
      samples,
      { p50: 50, p95: 95, max: 100 },
      'ms',
    );
  } finally {
    await proxier?.stop();
    await conn.stop();
    await bed.stop();
  }
}

try {
  for (const n of SIZES) await measure(n);
} finally {
  report.finish(`bench:proxier (userspace OVS; ${ROUNDS} endpoint changes per size; 2 shared cores: noisy)`);
}
