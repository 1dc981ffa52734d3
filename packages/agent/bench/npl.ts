// NodePortLocal controller cost with real iptables: how long the first sync, one more Pod, and an
// agent restart take as the number of mapped Pods grows (each change rewrites the whole
// ANTREA-NODE-PORT-LOCAL chain with one iptables-restore). Runs in a private netns (root needed);
// Pods and Services are fed by hand, annotations go to memory, and ports are "held" without sockets
// (the bench process is not in the netns), so this measures the controller and iptables only.
//   node packages/agent/dist/bench/npl.js [--json] [--pods 100,500,1000]
import {
  ExecCommandRunner,
  NodePortLocalController,
  type NplHandlers,
  NplIptables,
  type NplPod,
  nplPod,
  nplService,
} from '@antrea-ts/agent';
import { BenchReport, createNetns, NET_PREFIX, uniqueTag } from '@antrea-ts/harness';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const sizesArg = argv[argv.indexOf('--pods') + 1];
const sizes = argv.includes('--pods') && sizesArg ? sizesArg.split(',').map(Number) : [100, 500, 1000];
const bench = new BenchReport('npl', json);
const logger = pino({ level: 'silent' });

const pod = (i: number, annotation?: string): NplPod =>
  nplPod({
    metadata: {
      namespace: 'b',
      name: `p${i}`,
      labels: { app: 'web' },
      ...(annotation ? { annotations: { 'nodeportlocal.antrea.io': annotation } } : {}),
    },
    spec: {
      containers: [{ name: 'c', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] }],
    },
    status: { phase: 'Running', podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
  });
const service = nplService({
  metadata: { namespace: 'b', name: 'web', annotations: { 'nodeportlocal.antrea.io/enabled': 'true' } },
  spec: {
    selector: { app: 'web' },
    ports: [
      { port: 80, protocol: 'TCP' },
      { port: 53, protocol: 'UDP' },
    ],
  },
});

/** A controller over the netns's iptables, with a hand-fed source and an in-memory annotator. */
function controller(rules: NplIptables, annotations: Map<string, string>) {
  let handlers!: NplHandlers;
  const c = new NodePortLocalController({
    nodeIp: '192.0.2.1',
    portRange: { start: 20000, end: 40000 },
    source: {
      start: async (h) => {
        handlers = h;
      },
      stop: async () => undefined,
    },
    annotator: {
      set: async (ns, name, value) => {
        if (value === null) annotations.delete(`${ns}/${name}`);
        else annotations.set(`${ns}/${name}`, value);
      },
    },
    rules,
    opener: { open: async () => ({ close: async () => undefined }) },
    logger,
  });
  return { c, h: () => handlers };
}

const ms = (from: number) => performance.now() - from;

async function main(): Promise<void> {
  const netns = await createNetns(`${NET_PREFIX}-${uniqueTag()}-npl`);
  const rules = new NplIptables(new ExecCommandRunner(netns.name), logger);
  try {
    for (const n of sizes) {
      await rules.cleanup();
      const annotations = new Map<string, string>();
      const first = controller(rules, annotations);
      await first.c.start();
      first.h().upsertService(service);
      for (let i = 0; i < n; i++) first.h().upsertPod(pod(i));
      let t = performance.now();
      first.h().synced();
      await first.c.waitSynced();
      bench.record(`${n} Pods`, 'first sync', ms(t), 'ms');
      const samples: number[] = [];
      for (let k = 0; k < 5; k++) {
        t = performance.now();
        first.h().upsertPod(pod(n + k));
        await first.c.idle();
        samples.push(ms(t));
      }
      bench.recordPercentiles(
        `${n} Pods`,
        samples,
        { 'one Pod more p50': 50, 'one Pod more max': 100 },
        'ms',
      );
      await first.c.stop();
      // A restarted agent: every Pod comes with its annotation, the chain is in place.
      const again = controller(rules, annotations);
      await again.c.start();
      again.h().upsertService(service);
      for (let i = 0; i < n + 5; i++) again.h().upsertPod(pod(i, annotations.get(`b/p${i}`)));
      t = performance.now();
      again.h().synced();
      await again.c.waitSynced();
      bench.record(`${n} Pods`, 'restart sync', ms(t), 'ms');
      const rulesNow = (await rules.existing()).length;
      if (rulesNow !== 2 * (n + 5)) throw new Error(`expected ${2 * (n + 5)} rules, found ${rulesNow}`);
      await again.c.stop();
    }
  } finally {
    await rules.cleanup().catch(() => undefined);
    await netns.delete();
    bench.finish('NodePortLocal controller with real iptables-restore (2 ports per Pod), private netns');
  }
}

await main();
