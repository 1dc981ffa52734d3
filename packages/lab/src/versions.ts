import { join } from 'node:path';
import { run } from '@antrea-ts/harness';
import { kubectl } from './kube.js';
import type { LabLayout } from './layout.js';
import { ovsVersion } from './ovs.js';

/** Versions of what the lab runs, for `lab status`; a component that does not answer is left out. */
export async function collectVersions(
  kubeBinDir: string,
  layout: LabLayout,
): Promise<Record<string, string>> {
  const versions: Record<string, string> = { node: process.version };
  const [apiserver, ovs, etcd, infos] = await Promise.all([
    run([join(kubeBinDir, 'kube-apiserver'), '--version']).catch(() => ''),
    ovsVersion(),
    run(['etcd', '--version']).catch(() => ''),
    kubectl(kubeBinDir, layout, [
      'get',
      'antreacontrollerinfos,antreaagentinfos',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.version}{"\\n"}{end}',
    ]).catch(() => ''),
  ]);
  if (apiserver) versions['kube-apiserver'] = apiserver.trim();
  if (ovs) versions['openvswitch'] = ovs;
  if (etcd) versions['etcd'] = etcd.split('\n')[0]!.trim();
  for (const line of infos.split('\n').filter(Boolean)) {
    const [name, version] = line.split('=');
    if (name && version)
      versions[name === 'antrea-controller' ? 'antrea-controller' : `antrea-agent@${name}`] = version;
  }
  return versions;
}
