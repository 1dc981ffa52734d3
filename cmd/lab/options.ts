import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the lab CLI takes from its environment; everything else comes from flags. */
export interface LabProcessOptions {
  /** Default state dir: $ANTREA_TS_LAB_DIR, else /var/run/antrea-ts-lab (root) or ~/.cache/antrea-ts/lab. */
  readonly defaultStateDir: string;
  /** Dir of the pinned kube binaries (hack/build-kube.sh): $ANTREA_TS_CACHE/bin or ~/.cache/antrea-ts/bin. */
  readonly kubeBinDir: string;
}

export function loadOptions(env: NodeJS.ProcessEnv, uid: number): LabProcessOptions {
  const cache = env['ANTREA_TS_CACHE'] || join(homedir(), '.cache', 'antrea-ts');
  // /var/run is a tmpfs: the state vanishes with a reboot, as the netns and processes it names do.
  const defaultStateDir =
    env['ANTREA_TS_LAB_DIR'] || (uid === 0 ? '/var/run/antrea-ts-lab' : join(cache, 'lab'));
  return Object.freeze({ defaultStateDir, kubeBinDir: join(cache, 'bin') });
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error('want an integer from 1 to 16');
  return n;
}
