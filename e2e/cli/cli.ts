// The case runner CLI, as a function of argv and output streams so tests can drive it.
// run-cases.ts is the process entry (npm run e2e:cases -- <file or folder>...).
import { Command } from 'commander';
import { findCaseFiles, loadCase } from '../framework/case-loader.js';
import { PROVIDERS, type ProviderFactory, providerFromFlags } from '../framework/providers/registry.js';
import { caseLines, summaryLine } from '../framework/report.js';
import { type RunnerOptions, runCaseFiles } from '../framework/runner.js';
import { addClusterOptions, int, parseOrStatus, providerOption } from './options.js';

export interface CliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  isTTY?: boolean;
}

export interface CliDeps {
  /** Environment for defaults (ANTREA_TS_LAB_DIR, ANTREA_TS_CACHE); process.env in run-cases.ts. */
  env?: NodeJS.ProcessEnv;
  uid?: number;
  /** Provider factories by name, over the registry's (tests inject the oracle from source). */
  providers?: Record<string, { create: ProviderFactory }>;
  signal?: AbortSignal;
}

interface Parsed {
  paths: string[];
  provider: string;
  timeoutMs: number;
  concurrency: number;
  settleMs: number;
  retries: number;
  retryDelayMs: number;
  verbose: boolean;
  color: boolean | undefined;
  list: boolean;
  labStateDir: string;
  kubeBinDir: string;
  kubeContext: string | undefined;
  podImage: string | undefined;
}

function parse(argv: readonly string[], io: CliIO, env: NodeJS.ProcessEnv, uid: number): Parsed {
  const cmd = new Command('run-cases')
    .description(
      'Runs netpol-oracle/v1 case files against a cluster and compares observed with expected connectivity',
    )
    .argument('<paths...>', 'case files or folders (searched recursively; fixtures/ folders are skipped)')
    .addOption(providerOption(Object.keys(PROVIDERS)))
    .option('--timeout-ms <ms>', 'per-probe timeout; no answer by then is a drop', int(1), 2000)
    .option('--concurrency <n>', 'probes (or per-source probe batches) in flight', int(1), 8)
    .option('--settle-ms <ms>', 'wait after actions for what reports no realization status', int(0), 1000)
    .option('--retries <n>', 'probe mismatched cells again this many times', int(0), 2)
    .option('--retry-delay-ms <ms>', 'wait between probe rounds', int(0), 1000)
    .option('-v, --verbose', 'print every matrix, not only failing ones', false)
    .option('--color', 'colour mismatches (default: when stdout is a terminal)')
    .option('--no-color', 'no ANSI colours')
    .option('--list', 'load and check the case files, print their ids, run nothing', false);
  addClusterOptions(cmd, env, uid, {
    kubeContextHelp: 'kubeconfig context of the kind cluster (provider kind)',
    podImageHelp: 'image of the case Pods, with node (provider kind)',
  })
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  cmd.parse([...argv], { from: 'user' });
  const o = cmd.opts<Omit<Parsed, 'paths'>>();
  return Object.freeze({ ...o, paths: cmd.args });
}

/** Exit status: 0 all passed or skipped, 1 some case failed, 2 usage or setup error. */
export async function runCli(argv: readonly string[], io: CliIO, deps: CliDeps = {}): Promise<number> {
  const o = parseOrStatus(() => parse(argv, io, deps.env ?? {}, deps.uid ?? 0));
  if (typeof o === 'number') return o;
  let files: string[];
  try {
    files = findCaseFiles(o.paths);
  } catch (e) {
    io.err((e as Error).message);
    return 2;
  }
  if (files.length === 0) {
    io.err(`no case files under ${o.paths.join(' ')}`);
    return 2;
  }
  if (o.list) {
    let bad = 0;
    for (const f of files) {
      try {
        const c = loadCase(f);
        io.out(`${c.id}  ${c.steps.length} step(s)  ${f}`);
      } catch (e) {
        bad++;
        io.err((e as Error).message);
      }
    }
    return bad ? 1 : 0;
  }
  const provider = await providerFromFlags(o, io.err, deps.providers);
  if (!provider) return 2;
  const color = o.color ?? !!io.isTTY;
  const opts: RunnerOptions = {
    probeTimeoutMs: o.timeoutMs,
    concurrency: o.concurrency,
    settleMs: o.settleMs,
    retries: o.retries,
    retryDelayMs: o.retryDelayMs,
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
  io.out(`running ${files.length} case file(s) on provider ${provider.name}`);
  try {
    const summary = await runCaseFiles(provider, files, {
      ...opts,
      onCase: (r) => {
        for (const line of caseLines(r, { color, verbose: o.verbose })) io.out(line);
      },
    });
    for (const note of provider.notes?.() ?? []) io.out(`note: ${note}`);
    io.out(summaryLine(summary));
    return summary.failed > 0 ? 1 : 0;
  } finally {
    await provider.close?.();
  }
}
