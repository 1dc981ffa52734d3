// The repository root, from a module's place in the source tree or in dist/ alike.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E2eError } from './errors.js';

/** The nearest folder up from this module with a package.json declaring workspaces. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && 'workspaces' in (JSON.parse(readFileSync(pkg, 'utf8')) as object)) return dir;
    const up = dirname(dir);
    if (up === dir) throw new E2eError('E2E_PROVIDER', 'cannot find the repository root');
    dir = up;
  }
}
