import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { antreaCniConflist } from '@antrea-ts/apis';
import { run, setUpTransportBridge, tryRun } from '@antrea-ts/harness';
import { type LabLayout, UNDERLAY_PREFIX_LENGTH } from './layout.js';
import { AGENT_API_PORT } from './names.js';
import { cleanupOvs, startOvs, vsctl } from './ovs.js';
import { spawnDetached } from './processes.js';
import type { NodeRecord, ProcessRecord } from './state.js';

/** The CNI plugins a Node's bin dir offers besides antrea (Debian's containernetworking-plugins). */
const PLUGINS = ['host-local', 'portmap', 'bandwidth', 'loopback'];
const SYSTEM_CNI_DIR = '/usr/lib/cni';

/** The files of a Node: OVS run dir, CNI conf and bin dirs, agent socket, kubeconfig, IPAM data. */
export function nodeRecord(layout: LabLayout, index: number): NodeRecord {
  const name = layout.nodeName(index);
  const dir = layout.nodeDir(name);
  return {
    name,
    index,
    netns: name,
    nodeIp: layout.nodeIp(index),
    uplink: layout.uplinkName(index),
    ovsDir: join(dir, 'ovs'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniBinDir: join(dir, 'cni', 'bin'),
    cniSocket: join(dir, 'cni.sock'),
    apiPort: AGENT_API_PORT,
    apiTokenFile: join(dir, 'apiserver', 'loopback-client-token'),
  };
}

/**
 * The network half of a Node: its netns, the uplink veth (eth0 inside, `lbu<i>` on the underlay
 * bridge), userspace OVS, and br-phy owning the Node IP with the default route via the host.
 *
 * Userspace tunnels (Geneve on br-int) are encapsulated by ovs-vswitchd, which routes and ARPs for
 * the outer header through an OVS bridge that owns the Node IP: hence br-phy. A kernel datapath
 * would need none of this.
 */
export async function createNodeNetwork(
  layout: LabLayout,
  node: NodeRecord,
  record: (p: ProcessRecord) => Promise<void>,
): Promise<void> {
  const ns = node.netns;
  await run(['ip', 'netns', 'add', ns]);
  await run(['ip', 'link', 'set', 'lo', 'up'], { netns: ns });
  // Created under a temporary name so "eth0" never clashes in the root namespace.
  const tmp = layout.tempLinkName(node.index);
  await run(['ip', 'link', 'add', tmp, 'type', 'veth', 'peer', 'name', node.uplink]);
  await run(['ip', 'link', 'set', tmp, 'netns', ns]);
  await run(['ip', 'link', 'set', tmp, 'name', 'eth0'], { netns: ns });
  await run(['ip', 'link', 'set', 'eth0', 'up'], { netns: ns });
  await run(['ip', 'link', 'set', node.uplink, 'master', layout.underlayBridge]);
  await run(['ip', 'link', 'set', node.uplink, 'up']);
  await startOvs({ dir: node.ovsDir, netns: ns, logPrefix: join(layout.logDir, node.name), record });
  await setUpTransportBridge({
    netns: ns,
    vsctl: (args) => vsctl(node.ovsDir, ns, args),
    uplinkPeer: node.uplink,
    nodeCidr: `${node.nodeIp}/${UNDERLAY_PREFIX_LENGTH}`,
    gateway: layout.hostIp,
  });
}

/**
 * What a Node's kubelet and the agent DaemonSet's init container would leave on disk: the CNI
 * conflist in the conf dir, and the bin dir with `antrea` (the antrea-cni launcher) and the
 * reference plugins; plus antrea-agent.conf and the agent's kubeconfig.
 */
export function writeNodeFiles(
  layout: LabLayout,
  node: NodeRecord,
  options: { cniLauncher: string; agentKubeconfig: string },
): void {
  const dir = layout.nodeDir(node.name);
  mkdirSync(node.cniConfDir, { recursive: true });
  mkdirSync(node.cniBinDir, { recursive: true });
  writeFileSync(
    join(node.cniConfDir, '10-antrea.conflist'),
    `${JSON.stringify(antreaCniConflist(), null, 2)}\n`,
  );
  const link = (target: string, name: string) => {
    rmSync(join(node.cniBinDir, name), { force: true });
    symlinkSync(target, join(node.cniBinDir, name));
  };
  link(options.cniLauncher, 'antrea');
  for (const plugin of PLUGINS) link(join(SYSTEM_CNI_DIR, plugin), plugin);
  writeFileSync(
    join(dir, 'antrea-agent.conf'),
    [
      '# antrea-agent.conf of a lab Node (keys as in Antrea).',
      'ovsBridge: br-int',
      'ovsDatapathType: netdev',
      'trafficEncapMode: encap',
      'tunnelType: geneve',
      `apiPort: ${node.apiPort}`,
      `cniSocket: ${node.cniSocket}`,
      `cniBinDir: ${node.cniBinDir}`,
      `hostLocalDataDir: ${join(dir, 'ipam')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'kubeconfig'), options.agentKubeconfig, { mode: 0o600 });
}

/** Starts antrea-agent inside the Node's netns, as the DaemonSet's container would run it. */
export function startAgent(
  layout: LabLayout,
  node: NodeRecord,
  agentMain: string,
  controller: { address: string; port: number } | undefined,
): ProcessRecord {
  const dir = layout.nodeDir(node.name);
  const conf = join(dir, 'antrea-agent.conf');
  // The agent's scratch files live with the Node's other state, so `down` removes them even when
  // the agent was killed (a crash test) and could not clean up.
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return spawnDetached({
    name: `antrea-agent@${node.name}`,
    netns: node.netns,
    log: layout.log(`${node.name}-antrea-agent`),
    cmdlineMatch: conf,
    env: {
      NODE_NAME: node.name,
      TMPDIR: tmp,
      // What a Pod gets for the kube-system/antrea Service (Kubernetes' service environment
      // variables); there is no kube-proxy in the lab, so it names the controller's endpoint.
      ...(controller
        ? { ANTREA_SERVICE_HOST: controller.address, ANTREA_SERVICE_PORT: String(controller.port) }
        : {}),
    },
    argv: [
      process.execPath,
      agentMain,
      `--config=${conf}`,
      `--kubeconfig=${join(dir, 'kubeconfig')}`,
      `--node-name=${node.name}`,
      `--ovs-run-dir=${node.ovsDir}`,
      `--policy-audit-log-dir=${join(dir, 'networkpolicy')}`,
      `--api-token-file=${node.apiTokenFile}`,
    ],
  });
}

/** Removes a Node's network: OVS ports first, then the netns and the uplink. Safe when gone. */
export async function deleteNodeNetwork(
  node: Pick<NodeRecord, 'netns' | 'uplink' | 'ovsDir'>,
): Promise<void> {
  await cleanupOvs(node.ovsDir, node.netns);
  await tryRun(['ip', 'netns', 'delete', node.netns]);
  await tryRun(['ip', 'link', 'delete', node.uplink]);
}
