// Cold start of the antrea-cni binary, the cost kubelet pays on every Pod sandbox set-up and
// tear-down. Each sample is one fresh process, timed from spawn until it has exited.
//   npm run bench:startup -w @antrea-ts/cni [-- --json] [-- --runs N]
// --json prints one line per measurement: {"bench","case","metric","value","unit"}.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FakeCniAgent } from '@antrea-ts/cni/testing';
import { BenchReport, formatBenchMatrix } from '@antrea-ts/harness';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const LAUNCHER = `${root}cmd/antrea-cni/antrea-cni`;
const MAIN = `${root}dist/cmd/antrea-cni/main.js`;
const CONF = '{"cniVersion":"1.0.0","name":"antrea","type":"antrea"}';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 30;
const WARMUP = 3;

interface Case {
  name: string;
  cmd: string;
  args: string[];
  env: Record<string, string>;
  stdin: string;
}

function once(c: Case): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(c.cmd, c.args, {
      env: { PATH: process.env['PATH'] ?? '', ...c.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${c.name}: exit ${code}: ${out}`));
      else resolve(ms);
    });
    child.stdin.end(c.stdin);
  });
}

/** The spread reported per case: metric -> percentile of the samples. */
const SPREAD = { wall_min: 0, wall_p50: 50, wall_p90: 90, wall_max: 100 };

async function main(): Promise<void> {
  const agent = await FakeCniAgent.start();
  const pod = (command: string, transport = 'h2') => ({
    CNI_COMMAND: command,
    CNI_CONTAINERID: 'bench0001',
    CNI_NETNS: '/var/run/netns/bench',
    CNI_IFNAME: 'eth0',
    CNI_PATH: '/opt/cni/bin',
    ANTREA_CNI_SOCKET: agent.socketPath,
    ANTREA_CNI_TRANSPORT: transport,
  });
  const cases: Case[] = [
    { name: 'node -e 0 (floor)', cmd: process.execPath, args: ['-e', '0'], env: {}, stdin: '' },
    {
      name: 'VERSION node main.js',
      cmd: process.execPath,
      args: [MAIN],
      env: { CNI_COMMAND: 'VERSION' },
      stdin: CONF,
    },
    { name: 'VERSION launcher', cmd: LAUNCHER, args: [], env: { CNI_COMMAND: 'VERSION' }, stdin: CONF },
    { name: 'ADD launcher h2', cmd: LAUNCHER, args: [], env: pod('ADD'), stdin: CONF },
    { name: 'DEL launcher h2', cmd: LAUNCHER, args: [], env: pod('DEL'), stdin: CONF },
    { name: 'ADD launcher grpc-js', cmd: LAUNCHER, args: [], env: pod('ADD', 'grpc-js'), stdin: CONF },
  ];
  // Round-robin over the cases, so that load from elsewhere on the machine hits every case alike.
  const samples = cases.map(() => [] as number[]);
  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [k, c] of cases.entries()) {
        const ms = await once(c);
        if (i >= WARMUP) samples[k]!.push(ms);
      }
    }
  } finally {
    await agent.stop();
  }
  const report = new BenchReport('cni-startup', json, { table: formatBenchMatrix });
  for (const [k, c] of cases.entries()) report.recordPercentiles(c.name, samples[k]!, SPREAD, 'ms');
  report.finish(
    `antrea-cni cold start, ${RUNS} runs per case after ${WARMUP} warm-up (wall ms, spawn to exit)`,
  );
}

await main();
