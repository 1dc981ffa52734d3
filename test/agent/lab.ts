// A lab of netns Nodes, each with its own userspace OVS and an in-process Agent whose host commands
// run in the Node's namespace; Pods are namespaces wired by the agent through the real antrea-cni.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  Agent,
  type AgentConfig,
  type AgentDeps,
  InformerNodeSource,
  KubeAgentInfoWriter,
  makeConfig,
  netnsPathExists,
  OfConnection,
  ShellCommandRunner,
  type TrafficEncapMode,
} from '@antrea-ts/agent';
import { KubeAccessReviewer, KubeTokenReviewer } from '@antrea-ts/apiserver';
import {
  createNetns,
  createNetnsNode,
  createUnderlay,
  freePort,
  type KubeCluster,
  makeTempDir,
  type Netns,
  type NetnsNode,
  startKube,
  type TempDir,
  type Underlay,
  uniqueTag,
} from '@antrea-ts/harness';
import { OvsBridgeClient, OvsdbRpcClient } from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const LAUNCHER = `${ROOT}cmd/antrea-cni/antrea-cni`;
export const CNI_BIN_DIR = '/usr/lib/cni';

/** Builds dist/cmd/antrea-cni (the launcher runs compiled JavaScript). */
export async function buildCniPlugin(): Promise<void> {
  await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-cni'], { cwd: ROOT });
}

export interface LabNode {
  readonly name: string;
  readonly node: NetnsNode;
  readonly podCidr: string;
  readonly dir: TempDir;
  readonly cniSocket: string;
  readonly apiPort: number;
  agent: Agent | undefined;
  ovsdb: OvsdbRpcClient | undefined;
  of: OfConnection | undefined;
  nodes: InformerNodeSource | undefined;
  runners: ShellCommandRunner[];
  readonly config: AgentConfig;
}

export interface LabPod {
  readonly name: string;
  readonly netns: Netns;
  readonly containerId: string;
  readonly node: LabNode;
  ip: string;
}

/** Creates the Node object as NodeIPAM and kubelet would leave it: podCIDR and InternalIP. */
export async function createNodeObject(
  kube: KubeCluster,
  name: string,
  podCidr: string,
  ip: string,
): Promise<void> {
  await kube.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      spec: { podCIDR: podCidr, podCIDRs: [podCidr] },
    }),
  });
  await kube.kubectl([
    'patch',
    'node',
    name,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: ip }] } }),
  ]);
}

export async function createLabNode(options: {
  kube: KubeCluster;
  underlay: Underlay;
  name: string;
  podCidr: string;
  logger: Logger;
  encapMode?: TrafficEncapMode;
  config?: Partial<AgentConfig>;
}): Promise<LabNode> {
  const node = await createNetnsNode({ name: options.name, underlay: options.underlay });
  const dir = makeTempDir('agent');
  const apiPort = await freePort();
  const nodeName = `${options.name}-${uniqueTag()}`;
  await createNodeObject(options.kube, nodeName, options.podCidr, node.nodeIp);
  const config = makeConfig({
    nodeName,
    datapathType: 'netdev',
    trafficEncapMode: options.encapMode ?? 'encap',
    cniSocket: join(dir.path, 'cni.sock'),
    apiPort,
    // In-process agents share the host's files: each its own loopback token.
    apiLoopbackTokenPath: join(dir.path, 'loopback-client-token'),
    cniBinDir: CNI_BIN_DIR,
    hostLocalDataDir: join(dir.path, 'ipam'),
    ...options.config,
  });
  return {
    name: nodeName,
    node,
    podCidr: options.podCidr,
    dir,
    cniSocket: config.cniSocket,
    apiPort,
    agent: undefined,
    ovsdb: undefined,
    of: undefined,
    nodes: undefined,
    runners: [],
    config,
  };
}

/**
 * Starts (or restarts) the agent of a lab Node with fresh clients, as a new agent process would;
 * `extra` adds optional dependencies (e.g. `services` for AntreaProxy).
 */
export async function startAgent(
  n: LabNode,
  kube: KubeCluster,
  logger: Logger,
  extra: Partial<Pick<AgentDeps, 'services' | 'conntrackDump'>> = {},
): Promise<Agent> {
  const ovsdb = new OvsdbRpcClient({ endpoint: `unix:${n.node.ovs.dbSocket}`, logger });
  await ovsdb.start();
  const of = new OfConnection({ socketPath: n.node.ovs.bridgeMgmtSocket(n.config.bridgeName), logger });
  of.start();
  const nodes = new InformerNodeSource(kube.kubeConfig, logger);
  // One shell in the Node's namespace runs the agent's host commands (cheap forks, see ShellCommandRunner).
  const nodeRunner = new ShellCommandRunner({ netns: n.node.netns.name });
  const pluginRunner = new ShellCommandRunner();
  n.runners.push(nodeRunner, pluginRunner);
  const agent = new Agent({
    config: n.config,
    logger,
    bridges: new OvsBridgeClient(ovsdb, { logger }),
    ovsdb,
    ovsdbConnected: () => ovsdb.isConnected,
    sw: of,
    nodeRunner,
    pluginRunner,
    nodes,
    agentInfoWriter: new KubeAgentInfoWriter(kube.kubeConfig),
    apiReviewers: {
      tokenReviewer: new KubeTokenReviewer(kube.kubeConfig),
      accessReviewer: new KubeAccessReviewer(kube.kubeConfig),
    },
    randomBytes,
    netnsExists: netnsPathExists,
    ...extra,
  });
  Object.assign(n, { agent, ovsdb, of, nodes });
  await agent.start();
  return agent;
}

export async function stopAgent(n: LabNode): Promise<void> {
  await n.agent?.stop();
  await n.of?.stop();
  await n.ovsdb?.stop();
  for (const r of n.runners.splice(0)) r.stop();
  Object.assign(n, { agent: undefined, of: undefined, ovsdb: undefined, nodes: undefined });
}

export async function deleteLabNode(n: LabNode): Promise<void> {
  await stopAgent(n);
  await n.node.delete();
  n.dir.remove();
}

export interface CniRun {
  code: number | null;
  stdout: string;
}

/** Runs the antrea-cni launcher the way a container runtime does. */
export function runCni(env: Record<string, string>, stdin: string): Promise<CniRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(LAUNCHER, [], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(stdin);
  });
}

export const NET_CONF = JSON.stringify({
  cniVersion: '1.0.0',
  name: 'antrea',
  type: 'antrea',
  ipam: { type: 'host-local' },
});

export function cniEnv(n: LabNode, command: string, containerId: string, netnsPath: string, podName: string) {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: netnsPath,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${podName}`,
    CNI_PATH: CNI_BIN_DIR,
    ANTREA_CNI_SOCKET: n.cniSocket,
  };
}

/** A Pod: a netns wired by the agent through a CNI ADD. */
export async function addPod(n: LabNode, name: string): Promise<LabPod> {
  const netns = await createNetns(`ats-${uniqueTag()}-${name}`);
  const containerId = `c${randomBytes(8).toString('hex')}`;
  const r = await runCni(cniEnv(n, 'ADD', containerId, `/var/run/netns/${netns.name}`, name), NET_CONF);
  if (r.code !== 0) {
    await netns.delete();
    throw new Error(`CNI ADD failed: ${r.stdout}`);
  }
  const result = JSON.parse(r.stdout) as { ips: Array<{ address: string }> };
  return { name, netns, containerId, node: n, ip: result.ips[0]!.address.split('/')[0]! };
}

export async function deletePod(p: LabPod): Promise<void> {
  await runCni(cniEnv(p.node, 'DEL', p.containerId, `/var/run/netns/${p.netns.name}`, p.name), NET_CONF);
  await p.netns.delete();
}

/** Pings until one reply arrives (the first packet to a new Node may be lost while OVS resolves the outer MAC). */
export async function ping(from: Netns, ip: string, tries = 5): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const ok = await from.exec(['ping', '-c', '1', '-W', '1', ip]).then(
      () => true,
      () => false,
    );
    if (ok) return true;
  }
  return false;
}

/** `ping -c count` from a Pod; the output (replies, DUP! marks, summary) whatever the exit status. */
export function pingOutput(from: Netns, ip: string, count = 5): Promise<string> {
  return from.exec(['sh', '-c', 'ping -c "$1" -i 0.2 -W 2 "$2"; true', 'ping', String(count), ip]);
}

/**
 * The first `count` packets tcpdump sees on `netns`'s eth0 matching `filter`, while `traffic` runs
 * again and again until it has them: tcpdump takes a moment to listen (seconds under load), so
 * traffic sent once after a fixed pause can pass before it does. Empty when nothing matched in 30 s.
 */
export async function captureDuring(
  netns: Netns,
  filter: string,
  traffic: () => Promise<unknown>,
  count = 2,
): Promise<string> {
  let captured = false;
  const seen = netns
    .exec(
      ['sh', '-c', `timeout 30 tcpdump -n -l -c ${count} -i eth0 "$1" 2>/dev/null; true`, 'capture', filter],
      { timeoutMs: 40_000 },
    )
    .finally(() => {
      captured = true;
    });
  try {
    while (!captured) await traffic();
  } catch (err) {
    await seen.catch(() => undefined);
    throw err;
  }
  return seen;
}

export interface LabNodeSpec {
  readonly name: string;
  readonly podCidr: string;
  readonly encapMode?: TrafficEncapMode;
  /** The underlay the Node sits on (default: the lab's first). */
  readonly underlay?: Underlay;
}

export interface Lab {
  readonly kube: KubeCluster;
  readonly underlay: Underlay;
  readonly nodes: LabNode[];
  readonly pods: LabPod[];
  stop(): Promise<void>;
}

/**
 * kube-apiserver, an underlay and netns Nodes with running agents; `stop` removes the Pods added to
 * `pods`, the Nodes, the underlay and kube-apiserver. A spec's `underlay` puts its Node on another
 * underlay (which the caller creates and deletes).
 */
export async function startLab(
  specs: readonly LabNodeSpec[],
  logger: Logger,
  options: {
    /** Files under build/crds/ to apply before the Nodes join. */ readonly crds?: readonly string[];
  } = {},
): Promise<Lab> {
  await buildCniPlugin();
  const kube = await startKube({ logger });
  for (const crd of options.crds ?? []) await kube.kubectl(['apply', '-f', `${ROOT}build/crds/${crd}`]);
  const underlay = await createUnderlay();
  const nodes: LabNode[] = [];
  const pods: LabPod[] = [];
  const stop = async () => {
    for (const p of pods) await deletePod(p).catch(() => undefined);
    for (const n of nodes) await deleteLabNode(n);
    await underlay.delete();
    await kube.stop();
  };
  try {
    for (const s of specs) {
      nodes.push(
        await createLabNode({
          kube,
          underlay: s.underlay ?? underlay,
          name: s.name,
          podCidr: s.podCidr,
          logger,
          ...(s.encapMode ? { encapMode: s.encapMode } : {}),
        }),
      );
    }
    for (const n of nodes) await startAgent(n, kube, logger);
  } catch (err) {
    await stop();
    throw err;
  }
  return { kube, underlay, nodes, pods, stop };
}
