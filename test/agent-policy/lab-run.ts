// What the lab tests and benchmarks of this folder share: where the repository is, a fresh lab
// on freshly built binaries, and how a benchmark's main ends.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Lab, type LabOptions } from '@antrea-ts/lab';

/** The repository root, whether this module runs from test/ (vitest) or dist/test/ (tsc). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/dist\/$/, '');

/**
 * Builds what the lab runs (agent, CNI plugin, controller: a test must not run a stale dist/;
 * benchmarks leave that to their npm script), removes whatever a previous run of this instance
 * left, and brings up `nodes` Nodes.
 */
export async function freshLab(options: LabOptions, nodes: number, build = true): Promise<Lab> {
  if (build) {
    const cmds = ['cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'];
    await promisify(execFile)('npx', ['tsc', '-b', ...cmds], { cwd: ROOT });
  }
  await Lab.down(options);
  return Lab.up({ ...options, nodes });
}

/** The Node's br-int through `ovs-ofctl -O OpenFlow15` (see Lab.brIntOfctl). */
export function brIntOfctl(
  lab: Lab,
  node: string,
  command: readonly string[],
  args: readonly string[] = [],
): Promise<string> {
  return lab.brIntOfctl(node, command, args);
}

/** Runs a benchmark's main: exit 0 when it is done, 1 with the error on stderr. */
export function benchMain(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
