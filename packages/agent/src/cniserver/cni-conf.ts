import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CNI_CONFLIST_NAME = '10-antrea.conflist';

/**
 * The network configuration list Antrea installs (build/charts/antrea/conf/antrea-cni.conflist):
 * antrea, chained with portmap (hostPort) and bandwidth (ingress/egress shaping).
 */
export function antreaConflist(): object {
  return {
    cniVersion: '0.3.0',
    name: 'antrea',
    plugins: [
      { type: 'antrea', ipam: { type: 'host-local' } },
      { type: 'portmap', capabilities: { portMappings: true } },
      { type: 'bandwidth', capabilities: { bandwidth: true } },
    ],
  };
}

/** Writes the conflist atomically (the runtime may read the directory at any time). */
export async function installCniConflist(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, CNI_CONFLIST_NAME);
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(antreaConflist(), null, 2)}\n`, { mode: 0o644 });
  await rename(tmp, path);
  return path;
}
