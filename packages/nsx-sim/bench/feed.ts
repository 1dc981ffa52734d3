// NSX simulator: cost of the per-cluster CCP policy feed at adapter-benchmark scale, in process
// (fastify inject, JSON serialization included, no sockets).
//   npm run bench:feed -w @antrea-ts/nsx-sim [-- --json] [--policies N --rules N --groups N
//     --referenced N --iterations N]
// Setup: G groups (the first `referenced` are used by rules), P security policies x R rules spanned
// to one cluster, written with PATCH like the adapter benchmark does.
// Metrics: populate (all PATCHes), feed-cold (first feed), feed-unchanged (state unchanged since the
// last feed), rule-patch (one rule PATCH), feed-after-rule-change (first feed after it), feed-bytes;
// medians over --iterations; each time also as `-cpu` (this process's CPU time: steadier than wall
// time on a busy machine).
// --json prints one line per measurement: {"bench","case","metric","value","unit"}.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchReport, percentile } from '@antrea-ts/harness';
import { buildNsxSimApp, generateClientCertificate, memoryPersistence, SimStore } from '@antrea-ts/nsx-sim';
import { benchArgs, policyWorkload } from '@antrea-ts/nsx-sim/benchmark';
import { pino } from 'pino';

const args = benchArgs(process.argv.slice(2));
const POLICIES = args.number('policies', 500);
const RULES = args.number('rules', 10);
const GROUPS = args.number('groups', 3000);
const REFERENCED = Math.min(args.number('referenced', 1000), GROUPS);
const ITERATIONS = args.number('iterations', 5);
const CLUSTER = 'bench';
const CLUSTER_PATH = `/infra/sites/default/enforcement-points/default/cluster-control-planes/${CLUSTER}`;
const P = '/policy/api/v1';
const D = `${P}/infra/domains/default`;
const FEED = `/rpc/v1/clusters/${CLUSTER}/policy-feed`;

const report = new BenchReport('nsx-sim-feed', args.json);
const record = report.record.bind(report);
const median = (xs: number[]) => percentile(xs, 50);

/** Wall time and this process's CPU time (user + system; steadier on a busy machine), in ms. */
interface Sample {
  wall: number;
  cpu: number;
}
function start(): () => Sample {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(c0);
    return { wall: Number(process.hrtime.bigint() - t0) / 1e6, cpu: (c.user + c.system) / 1000 };
  };
}
function recordSamples(c: string, metric: string, samples: Sample[]): void {
  record(c, metric, median(samples.map((s) => s.wall)), 'ms');
  record(c, `${metric}-cpu`, median(samples.map((s) => s.cpu)), 'ms');
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const store = new SimStore(memoryPersistence, logger);
  const app = await buildNsxSimApp({ logger, store, auth: false });
  const dir = mkdtempSync(join(tmpdir(), 'nsx-sim-bench-'));
  const call = async (method: 'GET' | 'PATCH' | 'PUT', url: string, body?: unknown) => {
    const res = await app.inject({ method, url, ...(body !== undefined ? { payload: body as object } : {}) });
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body;
  };
  const name = `p${POLICIES}x${RULES}-g${GROUPS}-ref${REFERENCED}`;
  try {
    const { cert } = await generateClientCertificate(dir, CLUSTER);
    await call('PUT', `${P}${CLUSTER_PATH}`, { certificate: cert });
    let done = start();
    for (const { path, body } of policyWorkload({
      policies: POLICIES,
      rules: RULES,
      groups: GROUPS,
      referenced: REFERENCED,
      cluster: CLUSTER,
    }))
      await call('PATCH', `${P}${path}`, body);
    recordSamples(name, 'populate', [done()]);

    done = start();
    const first = await call('GET', FEED);
    recordSamples(name, 'feed-cold', [done()]);
    record(name, 'feed-bytes', first.length, 'bytes');
    const feed = JSON.parse(first) as { security_policies: unknown[]; groups: unknown[] };
    if (feed.security_policies.length !== POLICIES) throw new Error('feed is missing policies');

    const unchanged: Sample[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      done = start();
      await call('GET', FEED);
      unchanged.push(done());
    }
    recordSamples(name, 'feed-unchanged', unchanged);

    const patch: Sample[] = [];
    const after: Sample[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const policy = (i * 97) % POLICIES;
      done = start();
      await call('PATCH', `${D}/security-policies/p${policy}/rules/r0`, {
        action: i % 2 === 0 ? 'REJECT' : 'ALLOW',
      });
      patch.push(done());
      done = start();
      const body = await call('GET', FEED);
      after.push(done());
      if (!body.includes(i % 2 === 0 ? '"REJECT"' : '"ALLOW"'))
        throw new Error('rule change missing from the feed');
    }
    recordSamples(name, 'rule-patch', patch);
    recordSamples(name, 'feed-after-rule-change', after);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
  report.finish();
}

await main();
