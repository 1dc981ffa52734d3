// A small process that plays the container runtime's side for the benchmark: it starts plugin
// processes, as kubelet's runtime does, and makes CNI gRPC calls, as a plugin would. Either way the
// caller's CPU stays out of the benchmark's own large process, where the agent under test runs:
// forking that process costs tens of milliseconds of its event loop per child, and an in-process
// client's HTTP/2 work would queue behind (and ahead of) the agent's.
// Protocol: one JSON request per stdin line; one JSON reply per stdout line {id, ms, code, stdout},
// ms measured here from spawn to exit, or from connecting to the agent's reply.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type AgentCommand, type CniCmdArgs, socketAgentConnector } from '@antrea-ts/cni';

export interface SpawnRequest {
  kind: 'spawn';
  id: number;
  cmd: string;
  args: string[];
  env: Record<string, string>;
  stdin: string;
}

/** A CNI call over the agent's socket; networkConfiguration travels as a string. */
export interface GrpcRequest {
  kind: 'grpc';
  id: number;
  socket: string;
  command: AgentCommand;
  args: Omit<CniCmdArgs, 'networkConfiguration'> & { networkConfiguration: string };
}

export interface SpawnReply {
  id: number;
  ms: number;
  code: number | null;
  stdout: string;
}

function reply(r: SpawnReply): void {
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function runOne(req: SpawnRequest): void {
  const t0 = process.hrtime.bigint();
  const child = spawn(req.cmd, req.args, { env: req.env });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.resume();
  const done = (code: number | null) =>
    reply({ id: req.id, ms: Number(process.hrtime.bigint() - t0) / 1e6, code, stdout });
  child.on('error', () => done(-1));
  child.on('close', done);
  child.stdin.end(req.stdin);
}

async function callAgent(req: GrpcRequest): Promise<void> {
  const t0 = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
  try {
    const client = await socketAgentConnector({ socketPath: req.socket, timeoutMs: 60_000 }).connect();
    const out = await client.command(req.command, {
      ...req.args,
      networkConfiguration: new TextEncoder().encode(req.args.networkConfiguration),
    });
    reply({ id: req.id, ms: ms(), code: 0, stdout: new TextDecoder().decode(out) });
  } catch (err) {
    reply({ id: req.id, ms: ms(), code: 1, stdout: String((err as Error).message) });
  }
}

if (process.argv[1]?.endsWith('spawner.js')) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const req = JSON.parse(line) as SpawnRequest | GrpcRequest;
    if (req.kind === 'grpc') void callAgent(req);
    else runOne(req);
  });
}
