// What the lab tests and benchmarks of this folder share: where the repository is, a fresh lab
// on freshly built binaries, and how a benchmark's main ends.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cachedBinDir, run } from '@antrea-ts/harness';
import { Lab, type LabOptions, repoArtifacts } from '@antrea-ts/lab';
import type { Logger } from 'pino';

/** The repository root, whether this module runs from test/ (vitest) or dist/test/ (tsc). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/dist\/$/, '');

export function labOptions(instance: number, stateDir: string, logger: Logger): LabOptions {
  return { stateDir, instance, artifacts: repoArtifacts(ROOT, cachedBinDir()), logger };
}

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

/**
 * `ovs-ofctl -O OpenFlow15 <command...> <br-int of node> <args...>` in the Node's netns, e.g.
 * `brIntOfctl(lab, node, ['--no-stats', 'dump-flows'])` or `(lab, node, ['dump-aggregate'], ['table=16'])`.
 */
export function brIntOfctl(
  lab: Lab,
  node: string,
  command: readonly string[],
  args: readonly string[] = [],
): Promise<string> {
  const n = lab.node(node);
  return run(
    ['ovs-ofctl', '-O', 'OpenFlow15', ...command, `unix:${join(n.ovsDir, 'br-int.mgmt')}`, ...args],
    {
      netns: n.netns,
    },
  );
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
