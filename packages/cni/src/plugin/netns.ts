/**
 * Whether `path` names the network namespace this process is in, by comparing the nsfs inodes
 * (what libcni's ns.CheckNetNS does). A path that cannot be stat'ed is "not ours": DEL may get a
 * namespace that is already gone, and the agent decides what a bad path means for ADD.
 */
export async function isOwnNetns(path: string, self = '/proc/self/ns/net'): Promise<boolean> {
  // Imported here: only ADD and DEL need it, and VERSION should not pay for loading it.
  const { stat } = await import('node:fs/promises');
  try {
    const [a, b] = await Promise.all([stat(path), stat(self)]);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}
