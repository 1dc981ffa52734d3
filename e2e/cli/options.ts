// Option plumbing shared by the e2e CLIs (cli.ts, suites-cli.ts): integer flags, the provider
// flags with the lab CLI's defaults, and commander's exit turned into an exit status.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type Command, CommanderError, InvalidArgumentError, Option } from 'commander';

export function int(min: number) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return n;
  };
}

/** `-p, --provider` (one of `choices`, default lab). */
export function providerOption(choices: readonly string[]): Option {
  return new Option('-p, --provider <name>', 'cluster provider').choices(choices).default('lab');
}

/**
 * Adds the flags that locate a cluster: the lab's state dir and kube binaries (same defaults as the
 * lab CLI, cmd/lab/options.ts, so both find the same lab) and kind's context and Pod image.
 */
export function addClusterOptions(
  cmd: Command,
  env: NodeJS.ProcessEnv,
  uid: number,
  o: { kubeContextHelp: string; podImageHelp: string },
): Command {
  const cache = env.ANTREA_TS_CACHE || join(homedir(), '.cache', 'antrea-ts');
  const labDir = env.ANTREA_TS_LAB_DIR || (uid === 0 ? '/var/run/antrea-ts-lab' : join(cache, 'lab'));
  return cmd
    .option('--lab-state-dir <dir>', 'state dir of the running lab (provider lab)', labDir)
    .option('--kube-bin-dir <dir>', 'dir holding kubectl', join(cache, 'bin'))
    .option('--kube-context <name>', o.kubeContextHelp)
    .option('--pod-image <image>', o.podImageHelp);
}

/**
 * Runs `parse`; a commander exit (--help, a usage error) becomes exit status 0 or 2, returned as a
 * number in place of the parsed options.
 */
export function parseOrStatus<T>(parse: () => T): T | number {
  try {
    return parse();
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
}
