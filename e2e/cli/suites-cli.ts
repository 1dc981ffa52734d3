// The e2e suites CLI (connectivity, Pod churn, antctl, Nodes, restarts) on any provider, as a
// function of argv and output streams so tests can drive it. run-suites.ts is the process entry
// (npm run e2e:suites -- -p kind). The same checks run under vitest in e2e/lab-suites.test.ts.
import { Command, Option } from 'commander';
import { type ProviderFactory, providerFromFlags } from '../framework/providers/registry.js';
import { allChecks } from '../suites/all.js';
import { type CheckContext, finishNamespaceDeletions, missingCapabilities } from '../suites/check.js';
import { addClusterOptions, int, parseOrStatus, providerOption } from './options.js';

export interface SuitesIO {
  out: (line: string) => void;
  err: (line: string) => void;
}

export interface SuitesDeps {
  env?: NodeJS.ProcessEnv;
  uid?: number;
  providers?: Record<string, { create: ProviderFactory }>;
  signal?: AbortSignal;
}

interface Parsed {
  provider: string;
  suite: string[] | undefined;
  list: boolean;
  settleMs: number;
  churnPodsPerRound: number;
  churnMaxPods: number;
  labStateDir: string;
  kubeBinDir: string;
  kubeContext: string | undefined;
  podImage: string | undefined;
}

const SUITES = [...new Set(allChecks().map((c) => c.suite))];

function parse(argv: readonly string[], io: SuitesIO, env: NodeJS.ProcessEnv, uid: number): Parsed {
  const cmd = new Command('run-suites')
    .description('Runs the e2e suites (connectivity, Pod churn, antctl, Nodes, restarts) against a cluster')
    .addOption(providerOption(['lab', 'kind']))
    .addOption(new Option('-s, --suite <names...>', 'only these suites').choices(SUITES))
    .option('--list', 'print the checks and what each needs, run nothing', false)
    .option('--settle-ms <ms>', 'wait after policy changes that report no status', int(0), 1000)
    // host-local hands out a freed IP again only after the Node's range wraps: a /24 takes ~253 Pods.
    .option('--churn-pods-per-round <n>', 'Pods created and deleted per churn round', int(1), 8)
    .option(
      '--churn-max-pods <n>',
      'fail the churn check if no IP came back after this many Pods',
      int(1),
      300,
    );
  addClusterOptions(cmd, env, uid, {
    kubeContextHelp: 'kubeconfig context of the kind cluster (provider kind), e.g. kind-antrea-ts',
    podImageHelp: 'image of the e2e Pods, with node (provider kind)',
  })
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  cmd.parse([...argv], { from: 'user' });
  return Object.freeze(cmd.opts<Parsed>());
}

/** Exit status: 0 nothing failed (skipped is not failed), 1 a check failed, 2 usage or provider error. */
export async function runSuitesCli(
  argv: readonly string[],
  io: SuitesIO,
  deps: SuitesDeps = {},
): Promise<number> {
  const o = parseOrStatus(() => parse(argv, io, deps.env ?? {}, deps.uid ?? 0));
  if (typeof o === 'number') return o;
  const checks = allChecks({
    podsPerRound: o.churnPodsPerRound,
    maxPods: o.churnMaxPods,
    concurrency: 4,
  }).filter((c) => !o.suite || o.suite.includes(c.suite));
  if (o.list) {
    for (const c of checks)
      io.out(`${c.suite}: ${c.name}  [needs ${c.needs.join(', ') || 'nothing optional'}]`);
    return 0;
  }
  const provider = await providerFromFlags(o, io.err, deps.providers);
  if (!provider) return 2;
  const count = { passed: 0, failed: 0, skipped: 0 };
  const ctx: CheckContext = { provider, log: (line) => io.out(`  ${line}`), deleting: [] };
  try {
    for (const c of checks) {
      const title = `${c.suite}: ${c.name}`;
      const missing = missingCapabilities(provider, c);
      if (deps.signal?.aborted || missing.length > 0) {
        count.skipped++;
        io.out(
          `SKIPPED ${title} (${deps.signal?.aborted ? 'interrupted' : `provider ${provider.name} has no ${missing.join(', ')}`})`,
        );
        continue;
      }
      const started = Date.now();
      try {
        await c.run(ctx);
        count.passed++;
        io.out(`PASSED  ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (e) {
        count.failed++;
        io.out(`FAILED  ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        for (const l of String((e as Error).message ?? e).split('\n')) io.out(`  ${l}`);
      }
    }
    // The checks' Namespaces finish terminating meanwhile; a run is clean only once they are gone.
    await finishNamespaceDeletions(ctx).catch((e: unknown) => {
      count.failed++;
      io.out(`FAILED  cleanup: ${(e as Error).message}`);
    });
  } finally {
    await provider.close?.();
  }
  io.out(`${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped`);
  return count.failed > 0 ? 1 : 0;
}
