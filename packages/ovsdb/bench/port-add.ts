// OVSDB port-add round trip: what the agent pays per Pod on the OVS side. Runs a private
// ovsdb-server + ovs-vswitchd (userspace, own netns) and times, per sample:
//   echo             one JSON-RPC round trip (the floor)
//   add-port         the one-transaction Port+Interface insert
//   add-port+ofport  insert, then the server-side wait until ovs-vswitchd assigned the ofport
//   delete-port      removal from the bridge
//   npm run bench:port-add -w @antrea-ts/ovsdb [-- --json] [-- --runs N]
// --json prints one line per measurement: {"bench","case","metric","value","unit"}.
import { BenchReport, createNetns, formatBenchMatrix, startOvs, uniqueTag } from '@antrea-ts/harness';
import { OvsBridgeClient, OvsdbRpcClient } from '@antrea-ts/ovsdb';
import { pino } from 'pino';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 50;
const WARMUP = 5;
const BRIDGE = 'br-bench';

const logger = pino({ level: 'silent' });

/** The spread reported per case: metric -> percentile of the samples. */
const SPREAD = { min: 0, p50: 50, p90: 90, p99: 99, max: 100 };

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main(): Promise<void> {
  const node = await createNetns(`ats-${uniqueTag()}-bench`);
  const ovs = await startOvs({ netns: node.name, logger });
  const client = new OvsdbRpcClient({ endpoint: `unix:${ovs.dbSocket}`, logger });
  try {
    await client.start();
    const bridges = new OvsBridgeClient(client, { logger });
    await bridges.ensureBridge(BRIDGE, { datapathType: 'netdev', protocols: ['OpenFlow15'] });
    await bridges.waitForVswitchd();

    const samples: Record<string, number[]> = {
      echo: [],
      'add-port': [],
      'add-port+ofport': [],
      'delete-port': [],
    };
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const keep = i >= WARMUP;
      const port = `bp${i}`;
      const spec = {
        name: port,
        type: 'internal',
        externalIds: { 'antrea-type': 'container', pod: `pod-${i}` },
      };
      const echo = await time(() => client.echo([i]));
      const add = await time(() => bridges.addPort(BRIDGE, { ...spec, name: `${port}a` }));
      const addOfport = await time(async () => {
        await bridges.addPort(BRIDGE, spec);
        await bridges.waitForOfport(port);
      });
      const del = await time(() => bridges.deletePort(BRIDGE, port));
      await bridges.deletePort(BRIDGE, `${port}a`);
      if (keep) {
        samples['echo']!.push(echo);
        samples['add-port']!.push(add);
        samples['add-port+ofport']!.push(addOfport);
        samples['delete-port']!.push(del);
      }
    }

    const report = new BenchReport('ovsdb-port-add', json, { table: formatBenchMatrix });
    for (const [name, s] of Object.entries(samples)) report.recordPercentiles(name, s, SPREAD, 'ms');
    report.finish(`OVSDB port-add round trip, ${RUNS} runs (+${WARMUP} warm-up), milliseconds`);
  } finally {
    await client.stop();
    await ovs.stop();
    await node.delete();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
