import { access } from 'node:fs/promises';
import { inNetnsPath } from './command-runner.js';

/** Whether a network namespace handle (e.g. /var/run/netns/x, /proc/<pid>/ns/net) still exists. */
export async function netnsPathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Named namespaces live here (`ip netns add`, and what container runtimes hand to CNI). */
const NAMED_NETNS = /^\/(?:var\/)?run\/netns\/([^/]+)$/;

/**
 * The argv of `ip <args>` run in the network namespace at `path`: `ip -n <name>` for a named
 * namespace (one process), `nsenter --net=<path> ip` for any other handle such as /proc/<pid>/ns/net.
 */
export function ipInNetns(path: string, args: readonly string[]): string[] {
  const name = NAMED_NETNS.exec(path)?.[1];
  return name ? ['ip', '-n', name, ...args] : inNetnsPath(path, ['ip', ...args]);
}
