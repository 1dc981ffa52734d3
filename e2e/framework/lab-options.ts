// The LabOptions every lab test and lab benchmark starts from: its instance (lab<k>-* netns,
// 198.19.k.0/24), a state dir named after who owns the lab, the repository's built artifacts and the
// pinned kube binaries, and a pino logger.
import { join } from 'node:path';
import { cachedBinDir } from '@antrea-ts/harness';
import { type LabOptions, repoArtifacts } from '@antrea-ts/lab';
import { pino } from 'pino';
import { repoRoot } from './repo-root.js';

/** Who runs the lab: names its state dir `/var/run/antrea-ts-lab-<owner>-<instance>`. */
export type LabOwner = 'e2e' | 'test' | 'bench';

export interface LabOptionsOverrides extends Partial<LabOptions> {
  /** Default 'e2e'. */
  owner?: LabOwner;
}

/**
 * Options for lab `instance` (see docs/development.md for who owns which). The logger logs at
 * $TEST_LOG_LEVEL (default silent); a benchmark's is always silent, as its output is its table.
 */
export function e2eLabOptions(instance: number, overrides: LabOptionsOverrides = {}): LabOptions {
  const { owner = 'e2e', ...rest } = overrides;
  const level = owner === 'bench' ? 'silent' : (process.env['TEST_LOG_LEVEL'] ?? 'silent');
  return {
    stateDir: join('/var/run', `antrea-ts-lab-${owner}-${instance}`),
    instance,
    artifacts: repoArtifacts(repoRoot(), cachedBinDir()),
    logger: pino({ level }),
    ...rest,
  };
}
