import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where hack/build-kube.sh caches the pinned kube-apiserver, kube-controller-manager, kubectl and
 * cnitool. The one place the harness looks at the environment: ANTREA_TS_CACHE moves the cache.
 */
export function cachedBinDir(): string {
  const cache = process.env['ANTREA_TS_CACHE'] ?? join(homedir(), '.cache', 'antrea-ts');
  return join(cache, 'bin');
}
