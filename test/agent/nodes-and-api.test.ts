import { readFileSync, statSync } from 'node:fs';
import { DEFAULT_FEATURES, Pipeline } from '@antrea-ts/agent';
import { type KubeCluster, waitFor } from '@antrea-ts/harness';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentApiGet, caFromAgentInfo } from './agent-api-client.js';
import {
  addPod,
  captureDuring,
  createNodeObject,
  type Lab,
  type LabNode,
  type LabPod,
  ping,
  startLab,
} from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

async function flows(n: LabNode): Promise<string> {
  return n.node.ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', '--no-stats', 'br-int']);
}

describe('Node route controller and agent API (Encap)', () => {
  let lab: Lab | undefined;
  let kube: KubeCluster;
  let nodes: LabNode[] = [];
  let pods: LabPod[] = [];

  beforeAll(async () => {
    lab = await startLab([{ name: 'e1', podCidr: '10.40.1.0/24' }], logger, {
      crds: ['crd-antreaagentinfo.yaml'],
    });
    ({ kube, nodes, pods } = lab);
    pods.push(await addPod(nodes[0]!, 'a1'));
  });

  afterAll(async () => {
    await lab?.stop();
  });

  it('installs the tunnel flow, ARP responder and host route when a Node appears, removes them when it goes', async () => {
    const n = nodes[0]!;
    await createNodeObject(kube, 'ghost', '10.40.9.0/24', '198.18.250.9');
    const route = () => n.node.netns.exec(['ip', 'route', 'show', '10.40.9.0/24']);
    await waitFor(
      'tunnel flow for ghost',
      async () => (await flows(n)).includes('nw_dst=10.40.9.0/24'),
      30_000,
    );
    const f = await flows(n);
    expect(f).toContain('set_field:198.18.250.9->tun_dst');
    expect(f).toContain('arp_tpa=10.40.9.1');
    // The agent installs a peer's flows, then its route (and removes them in that order too).
    await waitFor('route to ghost', async () => (await route()) !== '', 30_000);
    expect(await route()).toContain('via 10.40.9.1 dev antrea-gw0 onlink');
    await kube.kubectl(['delete', 'node', 'ghost']);
    await waitFor('tunnel flow removed', async () => !(await flows(n)).includes('10.40.9.'), 30_000);
    await waitFor('route to ghost removed', async () => (await route()) === '', 30_000).catch(
      () => undefined,
    );
    expect(await route()).toBe('');
  });

  it('serves podinterfaces, ovsflows, agentinfo, health and metrics over HTTPS to the loopback token', async () => {
    const n = nodes[0]!;
    const base = n.agent!.apiAddress!;
    expect(base).toMatch(/^https:\/\//);
    // The token antctl in the agent Pod reads (0600), and the CA the agent publishes.
    const tokenFile = n.config.apiLoopbackTokenPath;
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8');
    const published = (await kube.kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      plural: 'antreaagentinfos',
      name: n.name,
    })) as { apiCABundle?: string };
    const ca = caFromAgentInfo(published);
    const get = (path: string) => agentApiGet(base, path, { token, ca });
    expect(await agentApiGet(base, '/livez', { ca })).toEqual({ status: 200, text: 'ok' });
    expect((await agentApiGet(base, '/readyz', { ca })).status).toBe(200);
    expect((await agentApiGet(base, '/podinterfaces', { ca })).status).toBe(401);
    expect((await agentApiGet(base, '/podinterfaces', { ca, token: `${token}x` })).status).toBe(401);
    const podIfs = JSON.parse((await get('/podinterfaces')).text) as Array<Record<string, unknown>>;
    expect(podIfs).toEqual([
      expect.objectContaining({ name: 'a1', podNamespace: 'default', ips: [pods[0]!.ip] }),
    ]);
    expect(JSON.parse((await get('/podinterfaces?name=nope')).text)).toEqual([]);
    const l3 = JSON.parse((await get('/ovsflows?table=L3Forwarding')).text) as Array<{ flow: string }>;
    expect(l3.some((x) => x.flow.includes(`nw_dst=${pods[0]!.ip}`))).toBe(true);
    const l3Id = new Pipeline(DEFAULT_FEATURES).id('L3Forwarding');
    expect(l3.every((x) => x.flow.includes(`table=${l3Id}`))).toBe(true);
    expect((await get('/ovsflows?table=Bogus')).status).toBe(400);
    const info = JSON.parse((await get('/agentinfo')).text) as { localPodNum: number; nodeSubnets: string[] };
    expect(info.localPodNum).toBe(1);
    expect(info.nodeSubnets).toEqual(['10.40.1.0/24']);
    const metrics = (await get('/metrics')).text;
    expect(metrics).toContain(
      'antrea_agent_cni_request_duration_seconds_count{command="ADD",result="success"} 1',
    );
    expect(metrics).toMatch(/antrea_agent_local_pod_count 1/);
  });

  it('keeps AntreaAgentInfo in the API server', async () => {
    const n = nodes[0]!;
    const api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
    const obj = (await api.getClusterCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      plural: 'antreaagentinfos',
      name: n.name,
    })) as {
      nodeSubnets: string[];
      ovsInfo: { bridgeName: string; flowTable: Record<string, number> };
      agentConditions: Array<{ type: string; status: string }>;
    };
    expect(obj.nodeSubnets).toEqual(['10.40.1.0/24']);
    expect(obj.ovsInfo.bridgeName).toBe('br-int');
    expect(obj.ovsInfo.flowTable['L3Forwarding']).toBeGreaterThan(0);
    expect(obj.agentConditions).toContainEqual(
      expect.objectContaining({ type: 'OpenflowConnectionUp', status: 'True' }),
    );
  });
});

describe('NoEncap: Nodes on one subnet route Pod traffic without a tunnel', () => {
  let lab: Lab | undefined;
  let nodes: LabNode[] = [];
  let pods: LabPod[] = [];

  beforeAll(async () => {
    lab = await startLab(
      [
        { name: 'x1', podCidr: '10.50.1.0/24', encapMode: 'noEncap' },
        { name: 'x2', podCidr: '10.50.2.0/24', encapMode: 'noEncap' },
      ],
      logger,
    );
    ({ nodes, pods } = lab);
    pods.push(await addPod(nodes[0]!, 'a1'), await addPod(nodes[1]!, 'b1'));
  });

  afterAll(async () => {
    await lab?.stop();
  });

  it('has no tunnel port, full-MTU Pods, routes via the peer Node IP, and unmasqueraded Pod-to-Pod', async () => {
    const [n1, n2] = nodes as [LabNode, LabNode];
    const [a1, b1] = pods as [LabPod, LabPod];
    expect(await n1.node.ovs.vsctl(['list-ports', 'br-int'])).not.toContain('antrea-tun0');
    expect(await a1.netns.exec(['cat', '/sys/class/net/eth0/mtu'])).toBe('1500\n');
    expect(await n1.node.netns.exec(['ip', 'route', 'show', '10.50.2.0/24'])).toContain(
      `via ${n2.node.nodeIp}`,
    );
    expect(await ping(a1.netns, b1.ip)).toBe(true);
    expect(await ping(b1.netns, a1.ip)).toBe(true);
    // The peer's podCIDR is excluded from SNAT.
    const rules = await n1.node.netns.exec(['iptables', '-t', 'nat', '-S', 'ANTREA-POSTROUTING']);
    expect(rules).toContain('-d 10.50.2.0/24');
    // b1 sees a1's own address (no masquerade): capture one echo request's source on b1.
    const seen = await captureDuring(
      b1.netns,
      'icmp',
      () => a1.netns.exec(['ping', '-c', '2', '-W', '1', b1.ip]),
      1,
    );
    expect(seen).toContain(`${a1.ip} > ${b1.ip}`);
  });
});
