import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { antreaCniConflist, CNI_CONFLIST_NAME } from '@antrea-ts/apis';

/** Writes Antrea's conflist atomically (the runtime may read the directory at any time). */
export async function installCniConflist(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, CNI_CONFLIST_NAME);
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(antreaCniConflist(), null, 2)}\n`, { mode: 0o644 });
  await rename(tmp, path);
  return path;
}
