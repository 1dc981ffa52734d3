// The antrea-agent binary as a Node runs it: a process inside the Node's network namespace, talking
// to its OVS over unix sockets and to kube-apiserver over the underlay.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createNetns,
  createNetnsNode,
  createUnderlay,
  type KubeCluster,
  ManagedProcess,
  makeTempDir,
  type Netns,
  type NetnsNode,
  startKube,
  type TempDir,
  type Underlay,
  uniqueTag,
  waitFor,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCniPlugin, CNI_BIN_DIR, createNodeObject, NET_CONF, ping, ROOT, runCni } from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

describe('antrea-agent binary in a netns Node', () => {
  let underlay: Underlay;
  let kube: KubeCluster;
  let node: NetnsNode;
  let dir: TempDir;
  let agent: ManagedProcess;
  let pod: Netns;
  const apiPort = 10350;

  beforeAll(async () => {
    await buildCniPlugin();
    await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-agent'], { cwd: ROOT });
    underlay = await createUnderlay();
    kube = await startKube({ logger, bindAddress: underlay.hostIp });
    await kube.kubectl(['apply', '-f', `${ROOT}build/crds/crd-antreaagentinfo.yaml`]);
    node = await createNetnsNode({ name: 'bin1', underlay });
    await createNodeObject(kube, 'bin1', '10.60.1.0/24', node.nodeIp);
    dir = makeTempDir('agent-bin');
    const conf = join(dir.path, 'antrea-agent.conf');
    writeFileSync(conf, 'ovsDatapathType: netdev\ntrafficEncapMode: encap\ntunnelType: vxlan\n');
    agent = new ManagedProcess({
      name: 'antrea-agent',
      netns: node.netns.name,
      logFile: join(dir.path, 'agent.log'),
      argv: [
        process.execPath,
        join(ROOT, 'dist/cmd/antrea-agent/main.js'),
        `--config=${conf}`,
        `--kubeconfig=${kube.kubeconfigPath}`,
        '--node-name=bin1',
        `--ovs-run-dir=${node.ovs.runDir}`,
        `--cni-socket=${join(dir.path, 'cni.sock')}`,
        `--cni-bin-dir=${CNI_BIN_DIR}`,
        `--host-local-data-dir=${join(dir.path, 'ipam')}`,
        `--api-port=${apiPort}`,
        `--cni-conf-dir=${join(dir.path, 'net.d')}`,
        '--log-level=debug',
      ],
    });
    await waitFor(
      `agent /readyz (log: ${join(dir.path, 'agent.log')})`,
      async () => {
        agent.assertRunning();
        return (await node.netns.exec(['curl', '-sf', `http://127.0.0.1:${apiPort}/readyz`])) === 'ok';
      },
      60_000,
      200,
    ).catch((err: unknown) => {
      throw new Error(
        `${(err as Error).message}\n${readFileSync(join(dir.path, 'agent.log'), 'utf8')
          .split('\n')
          .filter((l) => !l.includes('OpenFlow connect failed'))
          .join('\n')
          .slice(-3000)}`,
      );
    });
  });

  afterAll(async () => {
    if (pod) {
      await runCni(env('DEL'), NET_CONF).catch(() => undefined);
      await pod.delete();
    }
    await agent?.stop();
    await node?.delete();
    dir?.remove();
    await kube?.stop();
    await underlay?.delete();
  });

  function env(command: string) {
    return {
      CNI_COMMAND: command,
      CNI_CONTAINERID: 'cbin1',
      CNI_NETNS: `/var/run/netns/${pod.name}`,
      CNI_IFNAME: 'eth0',
      CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=p1',
      CNI_PATH: CNI_BIN_DIR,
      ANTREA_CNI_SOCKET: join(dir.path, 'cni.sock'),
    };
  }

  it('reads its config file (VXLAN tunnel), wires a Pod, and serves its API on 10350', async () => {
    expect(await node.ovs.vsctl(['get', 'interface', 'antrea-tun0', 'type'])).toBe('vxlan\n');
    expect(readFileSync(join(dir.path, 'net.d', '10-antrea.conflist'), 'utf8')).toContain('"portmap"');
    pod = await createNetns(`ats-${uniqueTag()}-p1`);
    const add = await runCni(env('ADD'), NET_CONF);
    expect(add.code).toBe(0);
    expect(await ping(pod, '10.60.1.1')).toBe(true);
    const pods = JSON.parse(
      await node.netns.exec(['curl', '-sf', `http://127.0.0.1:${apiPort}/podinterfaces`]),
    ) as unknown[];
    expect(pods).toHaveLength(1);
  });

  it('exits cleanly on SIGTERM, leaving the Pod connected', async () => {
    await agent.stop();
    expect(await ping(pod, '10.60.1.1')).toBe(true);
  });
});
