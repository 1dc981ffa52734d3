import { parseGoDuration } from '@antrea-ts/apis';
import type { Command } from 'commander';
import { type ApiClient, buildPath } from './client/api-client.js';
import { type ConnectionEnv, type Connections, createConnections } from './client/connections.js';
import { AntctlError } from './errors.js';
import { type AntctlMode, decideMode, type ModeDecision } from './mode.js';

/** Where output goes; a process stream or a test buffer. */
export interface OutputSink {
  write(chunk: string): unknown;
}

/** Everything antctl takes from its process, injected by cmd/antctl (and by tests). */
export interface AntctlDeps {
  readonly stdout: OutputSink;
  readonly stderr: OutputSink;
  /** POD_NAME, KUBECONFIG, HOME, ANTCTL_AGENT_TOKEN_FILE: the only environment antctl looks at. */
  readonly env: Readonly<{
    POD_NAME?: string;
    KUBECONFIG?: string;
    HOME?: string;
    ANTCTL_AGENT_TOKEN_FILE?: string;
  }>;
  /** Shown in usage and completion ("antctl", or "kubectl antctl" as a kubectl plugin). */
  readonly programName?: string;
  /** antctl's own version, printed by `antctl version`. */
  readonly version: string;
  fileExists(path: string): boolean;
  readFile(path: string): string;
  /** Writes a file, creating parent directories (support bundles). */
  writeFile(path: string, data: Buffer | string): void;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Random lowercase alphanumerics, for Traceflow names. */
  randomSuffix(length: number): string;
  /** Replaces real HTTP connections (unit tests). */
  connect?(mode: ModeDecision, env: ConnectionEnv): Connections;
}

/** Global flags, as Antrea's antctl defines them on the root command. */
export interface GlobalOptions {
  kubeconfig?: string;
  timeout?: number;
  server?: string;
  verbose?: boolean;
  mode?: string;
  agentAddress?: string;
}

export interface RunContext {
  readonly deps: AntctlDeps;
  readonly mode: ModeDecision;
  readonly conn: Connections;
  readonly globals: GlobalOptions;
  out(text: string): void;
}

/** Builds the per-command context from the parsed global flags. */
export function runContext(deps: AntctlDeps, cmd: Command, extra: { insecure?: boolean } = {}): RunContext {
  const globals = cmd.optsWithGlobals() as GlobalOptions;
  const mode = decideMode(deps.env.POD_NAME, globals.mode);
  const env: ConnectionEnv = {
    kubeconfig: globals.kubeconfig,
    kubeconfigEnv: deps.env.KUBECONFIG,
    homeDir: deps.env.HOME,
    server: globals.server,
    agentAddress: globals.agentAddress,
    agentTokenFile: deps.env.ANTCTL_AGENT_TOKEN_FILE,
    insecure: extra.insecure,
    timeoutMs: globals.timeout ?? 0,
    fileExists: deps.fileExists,
    readFile: deps.readFile,
  };
  const base = deps.connect ? deps.connect(mode, env) : createConnections(mode, env);
  const conn = globals.verbose ? traced(base, deps.stderr) : base;
  return { deps, mode, conn, globals, out: (t) => deps.stdout.write(t) };
}

/** -v/--verbose: every request and its status on stderr, so users can see which hop failed. */
function traced(conn: Connections, sink: OutputSink): Connections {
  const wrap = (c: ApiClient): ApiClient => ({
    target: c.target,
    async request(req) {
      const line = `${req.method ?? 'GET'} ${c.target}${buildPath(req.path, req.query)}`;
      try {
        const res = await c.request(req);
        sink.write(`${line} -> ${res.status}\n`);
        return res;
      } catch (err) {
        sink.write(`${line} -> ${(err as Error).message}\n`);
        throw err;
      }
    },
  });
  return {
    mode: conn.mode,
    kube: async () => wrap(await conn.kube()),
    controller: async () => {
      const r = await conn.controller();
      return { client: wrap(r.client), route: r.route };
    },
    controllerDirect: async () => wrap(await conn.controllerDirect()),
    agent: async () => wrap(await conn.agent()),
  };
}

/** Refuses a command the selected mode does not have, saying how to get the other mode. */
export function requireMode(ctx: RunContext, want: AntctlMode, command: string): void {
  if (ctx.mode.mode === want) return;
  const how =
    want === 'agent'
      ? 'run it inside an antrea-agent Pod ("kubectl -n kube-system exec -it <antrea-agent-pod> -c antrea-agent -- antctl ...") or pass --mode agent'
      : 'run it from outside the agent Pod with a kubeconfig, or pass --mode controller';
  throw new AntctlError(
    'ANTCTL_UNSUPPORTED_MODE',
    `"antctl ${command}" is only available in ${want} mode (this is ${ctx.mode.mode} mode): ${how}`,
  );
}

/** Antrea's --timeout takes Go durations (10s, 1m30s, 500ms); a bare number is seconds. */
export function parseDuration(value: string): number {
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (value === '') throw new AntctlError('ANTCTL_USAGE', 'empty duration');
  const ms = parseGoDuration(value);
  if (ms === undefined)
    throw new AntctlError('ANTCTL_USAGE', `invalid duration "${value}": want e.g. 30s, 2m, 1h30m`);
  return ms;
}
