// A small process that starts other processes for the benchmark, as kubelet's container runtime
// starts CNI plugins: forking the benchmark's own large process (kube informers, two agents) costs
// tens of milliseconds of its event loop per child, which would land on the agent under test.
// Protocol: one JSON request per stdin line {id, cmd, args, env, stdin}; one JSON reply per stdout
// line {id, ms, code, stdout}, ms measured here from spawn to exit.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SpawnRequest {
  id: number;
  cmd: string;
  args: string[];
  env: Record<string, string>;
  stdin: string;
}

export interface SpawnReply {
  id: number;
  ms: number;
  code: number | null;
  stdout: string;
}

function runOne(req: SpawnRequest): void {
  const t0 = process.hrtime.bigint();
  const child = spawn(req.cmd, req.args, { env: req.env });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.resume();
  const reply = (code: number | null) => {
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write(`${JSON.stringify({ id: req.id, ms, code, stdout } satisfies SpawnReply)}\n`);
  };
  child.on('error', () => reply(-1));
  child.on('close', reply);
  child.stdin.end(req.stdin);
}

if (process.argv[1]?.endsWith('spawner.js')) {
  createInterface({ input: process.stdin }).on('line', (line) => runOne(JSON.parse(line) as SpawnRequest));
}
