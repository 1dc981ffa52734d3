import { run, tryRun } from '@antrea-ts/harness';
import type { LabLayout } from './layout.js';
import { findProcesses, stopProcess } from './processes.js';

/**
 * What a crashed lab can leave that its state file does not name: processes inside lab netns
 * (`ip netns pids`), root-namespace processes whose command line names the state dir, lab netns,
 * and lab links. Returns what it removed, as "<kind> <id>" lines.
 */
export async function removeLeftovers(layout: LabLayout): Promise<string[]> {
  const stateDir = layout.stateDir;
  const removed: string[] = [];
  const netnsList = (await run(['ip', 'netns', 'list']).catch(() => ''))
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(layout.netnsPrefix));
  for (const ns of netnsList) {
    const pids = (await run(['ip', 'netns', 'pids', ns]).catch(() => ''))
      .split('\n')
      .map(Number)
      .filter((n) => n > 0);
    for (const pid of pids) {
      await stopProcess({ pid, cmdlineMatch: '' }, 2_000);
      removed.push(`process ${pid} (netns ${ns})`);
    }
  }
  // With the trailing slash: /var/run/antrea-ts-lab must not match another lab's
  // /var/run/antrea-ts-lab-e2e-8.
  const needle = `${stateDir.replace(/\/+$/, '')}/`;
  for (const pid of findProcesses(needle)) {
    await stopProcess({ pid, cmdlineMatch: needle }, 3_000);
    removed.push(`process ${pid}`);
  }
  for (const ns of netnsList) {
    if (await tryRun(['ip', 'netns', 'delete', ns])) removed.push(`netns ${ns}`);
  }
  const links = (await run(['ip', '-o', 'link', 'show']).catch(() => ''))
    .split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0] ?? '')
    .filter((n) => layout.isLabLink(n));
  // The bridge last: its ports go with their netns.
  links.sort((a, b) => Number(a === layout.underlayBridge) - Number(b === layout.underlayBridge));
  for (const link of links) {
    if (await tryRun(['ip', 'link', 'delete', link])) removed.push(`link ${link}`);
  }
  return removed;
}
