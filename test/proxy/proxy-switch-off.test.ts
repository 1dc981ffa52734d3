// antreaProxy.enable switched between agent runs, on a real (userspace) ovs-vswitchd: an agent that
// restarts with AntreaProxy off removes the select groups the previous run's proxier left (their
// flows go with the old round, groups carry no cookie), and one that restarts with it on again puts
// them back under the same ids. A netns Node with an in-process agent and real kube-apiserver. Last,
// a restart with the defaults removes what proxyAll and NodePortLocal left in the nat table.
import { ExecCommandRunner, InformerServiceSource, NodePortIptables, NplIptables } from '@antrea-ts/agent';
import {
  createUnderlay,
  type KubeCluster,
  serviceWithEndpoints,
  startKube,
  type Underlay,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabNode, deleteLabNode, type LabNode, startAgent, stopAgent } from '../agent/lab.js';

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NS = 'proxy-off';
const WEB = `service/${NS}/web/http/TCP`;

let kube: KubeCluster;
let underlay: Underlay | undefined;
let node: LabNode | undefined;

beforeAll(async () => {
  kube = await startKube({ logger });
  underlay = await createUnderlay();
  node = await createLabNode({ kube, underlay, name: 'pxoff', podCidr: '10.21.1.0/24', logger });
  await kube.kubectl(['create', 'namespace', NS]);
  await kube.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: serviceWithEndpoints({
        name: 'web',
        namespace: NS,
        ip: '10.21.2.7',
        port: 8080,
        portName: 'http',
        servicePort: 80,
      }),
    }),
  });
}, 180_000);

afterAll(async () => {
  if (node) await deleteLabNode(node);
  await underlay?.delete();
  await kube?.stop();
});

/** Group ids on the switch, from `ovs-ofctl dump-groups`. */
async function switchGroupIds(n: LabNode): Promise<number[]> {
  const dump = await n.node.ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', n.config.bridgeName]);
  return [...dump.matchAll(/group_id=(\d+)/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
}

async function switchFlows(n: LabNode): Promise<string> {
  return n.node.ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', '--no-stats', n.config.bridgeName]);
}

/** Restarts the Node's agent with antreaProxy.enable set to `enable` (and the Service source it needs). */
async function restartWithProxy(n: LabNode, enable: boolean): Promise<void> {
  await stopAgent(n);
  Object.assign(n, { config: { ...n.config, antreaProxy: { ...n.config.antreaProxy, enable } } });
  await startAgent(
    n,
    kube,
    logger,
    enable ? { services: new InformerServiceSource(kube.kubeConfig, logger) } : {},
  );
}

/** The group ids the running agent's FlowCache holds for the Service's port. */
const ownedIds = (n: LabNode, owner: string): number[] =>
  n.agent?.flowCache.ownedGroups(owner).map((g) => g.groupId) ?? [];

describe('antreaProxy.enable switched across agent restarts', () => {
  let onIds: number[] = [];

  it('with AntreaProxy on, the Services’ groups are on the switch', async () => {
    const n = node as LabNode;
    await startAgent(n, kube, logger, { services: new InformerServiceSource(kube.kubeConfig, logger) });
    const webIds = ownedIds(n, WEB);
    expect(webIds).toHaveLength(1);
    onIds = await switchGroupIds(n);
    // web's and the apiserver's own default/kubernetes Service.
    expect(onIds.length).toBeGreaterThanOrEqual(2);
    expect(onIds).toContain(webIds[0]);
    expect(await switchFlows(n)).toContain(`group:${webIds[0]}`);
  }, 120_000);

  it('restarted with AntreaProxy off, the agent removes the groups the previous run left', async () => {
    const n = node as LabNode;
    await restartWithProxy(n, false);
    expect(n.agent?.pipeline.features.has('service')).toBe(false);
    expect(await switchGroupIds(n)).toEqual([]);
    expect(await switchFlows(n)).not.toMatch(/group:\d+/);
  }, 120_000);

  it('restarted with AntreaProxy on again, the groups come back under the same ids', async () => {
    const n = node as LabNode;
    await restartWithProxy(n, true);
    expect(await switchGroupIds(n)).toEqual(onIds);
    const webId = ownedIds(n, WEB)[0];
    expect(await switchFlows(n)).toContain(`group:${webId}`);
  }, 120_000);

  it('restarted with proxyAll and NodePortLocal off (the defaults), the agent removes both features’ leftover chains', async () => {
    const n = node as LabNode;
    const runner = new ExecCommandRunner(n.node.netns.name);
    // What runs with proxyAll and NodePortLocal on would have left.
    await new NodePortIptables(runner, logger).sync(['192.0.2.1'], [{ protocol: 'tcp', port: 30080 }]);
    await new NplIptables(runner, logger).sync([
      { nodePort: 61000, protocol: 'tcp', podIp: '10.21.1.9', podPort: 80 },
    ]);
    const nat = () => n.node.netns.exec(['iptables-save', '-t', 'nat']);
    expect(await nat()).toMatch(/ANTREA-NODEPORT-IP[\s\S]*ANTREA-NODE-PORT-LOCAL/);
    await restartWithProxy(n, true);
    expect(await nat()).not.toMatch(/ANTREA-NODEPORT|ANTREA-NODE-PORT-LOCAL/);
  }, 120_000);
});
