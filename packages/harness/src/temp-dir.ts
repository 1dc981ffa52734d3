import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerDirCleanup } from './cleanup-registry.js';

/** Every temp dir of the harness starts with this, so the leak check can find leftovers. */
export const TEMP_PREFIX = 'antrea-ts-';

export interface TempDir {
  path: string;
  remove(): void;
}

export function makeTempDir(kind: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${kind}-`));
  const unregister = registerDirCleanup(path);
  return {
    path,
    remove() {
      rmSync(path, { recursive: true, force: true });
      unregister();
    },
  };
}
