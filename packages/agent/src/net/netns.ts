import { access } from 'node:fs/promises';

/** Whether a network namespace handle (e.g. /var/run/netns/x, /proc/<pid>/ns/net) still exists. */
export async function netnsPathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
