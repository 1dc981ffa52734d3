// How long the agent's TrafficControl controller takes, on real userspace ovs-vswitchd, from a
// change in the API to its flows committed on the bridge:
//   tsc -b test && node dist/test/trafficcontrol/bench-traffic-control.js [--json] [--runs 10]
// Cases: a new TrafficControl with a new OVS internal port (port created through OVSDB, ofport,
// link up, marks), and one more Pod for a TrafficControl that already selects 100 or 1000 Pods
// (each sync recomputes the whole state: this shows what that costs). Pods are interface-store
// entries with made-up ofports: marks need no real port behind them.
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  FlowCache,
  MemoryTrafficControlSource,
  OfConnection,
  Pipeline,
  type PodInterface,
  pipelineFlows,
  TrafficControlController,
} from '@antrea-ts/agent';
import type { TrafficControl } from '@antrea-ts/apis';
import { BenchReport, run, startOvs } from '@antrea-ts/harness';
import { OvsBridgeClient, OvsdbRpcClient } from '@antrea-ts/ovsdb';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 10;
const BR = 'br-int';
const logger = pino({ level: 'silent' });
const report = new BenchReport('traffic-control', json);

const mirror = (name: string, tap: string): TrafficControl => ({
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name },
  spec: {
    appliedTo: { podSelector: { matchLabels: { app: 'web' } } },
    direction: 'Both',
    action: 'Mirror',
    targetPort: { ovsInternal: { name: tap } },
  },
});

const ovs = await startOvs({ logger });
const ovsdb = new OvsdbRpcClient({ endpoint: `unix:${ovs.dbSocket}`, logger });
const conn = new OfConnection({ socketPath: ovs.bridgeMgmtSocket(BR), logger });
let controller: TrafficControlController | undefined;
try {
  await ovs.vsctl(['add-br', BR, '--', 'set', 'Bridge', BR, 'datapath_type=netdev', 'fail_mode=secure']);
  await ovs.vsctl(['set', 'Bridge', BR, 'protocols=OpenFlow10,OpenFlow15']);
  await ovsdb.start();
  conn.start();
  await conn.waitConnected(10_000);
  const ctx = {
    pipeline: new Pipeline(new Set([...DEFAULT_FEATURES, 'trafficControl'])),
    cookies: new CookieAllocator(1),
  };
  const cache = new FlowCache(conn, logger);
  await cache.replace('pipeline', pipelineFlows(ctx));
  const source = new MemoryTrafficControlSource();
  let interfaces: PodInterface[] = [];
  let committed: ((marks: number) => void) | undefined;
  controller = new TrafficControlController({
    source,
    bridges: new OvsBridgeClient(ovsdb, { logger }),
    bridgeName: BR,
    flows: {
      replace: async (owner, flows) => {
        await cache.replace(owner, flows);
        if (owner !== 'trafficcontrol') committed?.(flows.length);
      },
    },
    ctx,
    pods: () => interfaces,
    setLinkUp: async (name) => void (await run(['ip', 'link', 'set', name, 'up'], { netns: ovs.netns })),
    logger,
  });
  await controller.start();

  /** Milliseconds from `change()` to the sync that committed `marks` mark flows. */
  const timed = async (marks: number, change: () => void): Promise<number> => {
    const done = new Promise<void>((resolve) => {
      committed = (n) => {
        if (n === marks) resolve();
      };
    });
    const started = performance.now();
    change();
    await done;
    return performance.now() - started;
  };
  /** n Pods in the interface store, and the same Pods as the API lists them. */
  const podsOf = (n: number) => {
    interfaces = Array.from(
      { length: n },
      (_, i) => ({ podName: `p${i}`, podNamespace: 'ns', ofport: 100 + i }) as PodInterface,
    );
    return interfaces.map((p) => ({
      namespace: 'ns',
      name: p.podName,
      labels: { app: 'web' },
      hostNetwork: false,
    }));
  };

  source.set({ pods: podsOf(10) });
  const created: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    created.push(await timed(20, () => source.set({ trafficControls: [mirror('bench', `tcbench${i}`)] })));
    await timed(0, () => source.set({ trafficControls: [] }));
  }
  report.recordPercentiles(
    'new TrafficControl + internal port, 10 Pods',
    created,
    { p50: 50, p95: 95 },
    'ms',
  );

  for (const n of [100, 1000]) {
    await timed(2 * n, () => source.set({ trafficControls: [mirror('bench', 'tcbench')], pods: podsOf(n) }));
    const added: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      added.push(await timed(2 * (n + 1), () => source.set({ pods: podsOf(n + 1) })));
      await timed(2 * n, () => source.set({ pods: podsOf(n) }));
    }
    report.recordPercentiles(
      `one more Pod, TrafficControl selecting ${n}`,
      added,
      { p50: 50, p95: 95 },
      'ms',
    );
  }
} finally {
  await controller?.stop();
  await conn.stop();
  await ovsdb.stop();
  await ovs.stop();
  report.finish('TrafficControl: API change to flows committed on real ovs-vswitchd');
}
