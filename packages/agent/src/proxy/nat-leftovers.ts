import type { CommandRunner } from '../net/command-runner.js';

/**
 * What one disabled feature left in the Node's nat table, found in `iptables-save -t nat` output:
 * the iptables-restore lines (`-D` jumps, `-F`/`-X` chains) that remove it; none when nothing is left.
 */
export type NatLeftovers = (savedNat: string) => string[];

/**
 * Start-up clean-up of features that are off (proxyAll's NodePort chains, NodePortLocal's chain):
 * one `iptables-save -t nat` read for all of them, and one `iptables-restore --noflush` when any
 * left something, instead of each feature reading (and writing) on its own. Resolves to the
 * number of restore lines written (0: the read was the only command).
 */
export async function removeNatLeftovers(
  runner: CommandRunner,
  finders: readonly NatLeftovers[],
): Promise<number> {
  if (finders.length === 0) return 0;
  const saved = await runner.run(['iptables-save', '-t', 'nat']);
  const lines = finders.flatMap((find) => find(saved));
  if (lines.length === 0) return 0;
  await runner.run(['iptables-restore', '--noflush', '-w', '5'], {
    input: ['*nat', ...lines, 'COMMIT', ''].join('\n'),
  });
  return lines.length;
}

/**
 * The restore lines that remove `chains` (those `saved` has) and every rule of another chain that
 * jumps to one of them (each `-A X ... -j chain` becomes `-D X ...`, once per copy): jumps first,
 * then every chain flushed, then deleted, so chains that jump to each other go together.
 */
export function chainsRemoval(saved: string, chains: readonly string[]): string[] {
  const lines = saved.split('\n').map((l) => l.trim());
  const present = chains.filter((c) => lines.some((l) => l.startsWith(`:${c} `)));
  if (present.length === 0) return [];
  const inRemoved = (l: string) => present.some((c) => l.startsWith(`-A ${c} `));
  const jumps = lines.filter(
    (l) => l.startsWith('-A ') && !inRemoved(l) && present.some((c) => l.endsWith(` -j ${c}`)),
  );
  return [
    ...jumps.map((l) => `-D ${l.slice(3)}`),
    ...present.map((c) => `-F ${c}`),
    ...present.map((c) => `-X ${c}`),
  ];
}
