// Encap modes other than Encap, with real packets on netns Nodes: NoEncap routes Pod traffic via Node
// IPs; Hybrid routes within a subnet and tunnels (Geneve) across subnets; NetworkPolicyOnly leaves
// routing between Nodes to the network underneath (here: routes the test adds, as a cloud's primary
// CNI or VPC would) and installs neither tunnel, nor Node routes, nor SNAT.
import {
  createNetns,
  createUnderlay,
  createVethPair,
  type Netns,
  run,
  type Underlay,
  uniqueTag,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addPod,
  captureDuring,
  type Lab,
  type LabNode,
  type LabPod,
  ping,
  pingOutput,
  startLab,
} from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

/** What crosses a Node's uplink while `traffic` runs: tcpdump lines matching `filter`. */
const capture = (n: LabNode, filter: string, traffic: () => Promise<unknown>): Promise<string> =>
  captureDuring(n.node.netns, filter, traffic);

const routeTo = (n: LabNode, cidr: string) => n.node.netns.exec(['ip', 'route', 'show', cidr]);

describe('Hybrid: routed within a subnet, Geneve across subnets', () => {
  let lab: Lab;
  let other: Underlay;
  let router: Netns;
  let nodes: LabNode[];
  let pods: LabPod[];

  beforeAll(async () => {
    other = await createUnderlay();
    lab = await startLab(
      [
        { name: 'h1', podCidr: '10.14.1.0/24', encapMode: 'hybrid' },
        { name: 'h2', podCidr: '10.14.2.0/24', encapMode: 'hybrid' },
        { name: 'h3', podCidr: '10.14.3.0/24', encapMode: 'hybrid', underlay: other },
      ],
      logger,
    );
    ({ nodes, pods } = lab);
    // A router between the two underlays (the root namespace does not forward).
    router = await createNetns(`ats-${uniqueTag()}-rt`);
    const gw: string[] = [];
    for (const [i, u] of [lab.underlay, other].entries()) {
      const peer = `ats${uniqueTag()}r`;
      await createVethPair({ name: `eth${i}`, netns: router.name }, { name: peer });
      await run(['ip', 'link', 'set', peer, 'master', u.bridge]);
      await run(['ethtool', '-K', peer, 'tx', 'off']);
      const ip = u.allocateIp();
      gw.push(ip);
      await router.exec(['ip', 'addr', 'add', `${ip}/24`, 'dev', `eth${i}`]);
    }
    await router.exec(['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    const subnet = (u: Underlay) => u.hostIp.replace(/\.1$/, '.0/24');
    for (const n of nodes.slice(0, 2)) await routeVia(n, subnet(other), gw[0]!);
    await routeVia(nodes[2]!, subnet(lab.underlay), gw[1]!);
    pods.push(await addPod(nodes[0]!, 'a1'), await addPod(nodes[1]!, 'b1'), await addPod(nodes[2]!, 'c1'));
  });

  async function routeVia(n: LabNode, cidr: string, via: string): Promise<void> {
    await n.node.netns.exec(['ip', 'route', 'add', cidr, 'via', via, 'dev', 'br-phy']);
  }

  afterAll(async () => {
    await lab?.stop();
    await router?.delete();
    await other?.delete();
  });

  it('keeps the tunnel port and tunnel-sized Pod MTU', async () => {
    expect(await nodes[0]!.node.ovs.vsctl(['list-ports', 'br-int'])).toContain('antrea-tun0');
    expect(await pods[0]!.netns.exec(['cat', '/sys/class/net/eth0/mtu'])).toBe('1450\n');
  });

  it('routes to a Node on the same subnet via its Node IP, plain IP on the wire', async () => {
    const [n1, n2] = nodes as [LabNode, LabNode];
    const [a1, b1] = pods as [LabPod, LabPod];
    expect(await routeTo(n1, '10.14.2.0/24')).toContain(`via ${n2.node.nodeIp} dev br-phy`);
    expect(await ping(a1.netns, b1.ip)).toBe(true);
    const wire = await capture(n2, `icmp and host ${a1.ip}`, () => pingOutput(a1.netns, b1.ip, 2));
    expect(wire).toContain(`${a1.ip} > ${b1.ip}: ICMP echo request`);
  });

  it('tunnels to a Node on another subnet through Geneve', async () => {
    const [n1, , n3] = nodes as [LabNode, LabNode, LabNode];
    const [a1, , c1] = pods as [LabPod, LabPod, LabPod];
    expect(await routeTo(n1, '10.14.3.0/24')).toContain('via 10.14.3.1 dev antrea-gw0 onlink');
    expect(await ping(a1.netns, c1.ip)).toBe(true);
    const wire = await capture(n3, 'udp port 6081', () => pingOutput(a1.netns, c1.ip, 2));
    expect(wire).toContain(`${n1.node.nodeIp}.`);
    expect(wire).toMatch(/Geneve.*ICMP echo request/);
    expect(await pingOutput(c1.netns, a1.ip, 3)).toMatch(/3 packets transmitted, 3 received/);
  });
});

describe('NetworkPolicyOnly: the network underneath routes between Nodes', () => {
  let lab: Lab;
  let nodes: LabNode[];
  let pods: LabPod[];

  beforeAll(async () => {
    lab = await startLab(
      [
        { name: 'p1', podCidr: '10.16.1.0/24', encapMode: 'networkPolicyOnly' },
        { name: 'p2', podCidr: '10.16.2.0/24', encapMode: 'networkPolicyOnly' },
      ],
      logger,
    );
    ({ nodes, pods } = lab);
    pods.push(await addPod(nodes[0]!, 'a1'), await addPod(nodes[0]!, 'a2'), await addPod(nodes[1]!, 'b1'));
  });

  afterAll(() => lab?.stop());

  it('installs no tunnel, no Node routes and no SNAT', async () => {
    const [n1] = nodes as [LabNode];
    expect(await n1.node.ovs.vsctl(['list-ports', 'br-int'])).not.toContain('antrea-tun0');
    expect(await routeTo(n1, '10.16.2.0/24')).toBe('');
    const nat = await n1.node.netns.exec(['iptables-save', '-t', 'nat']);
    expect(nat).not.toContain('ANTREA-POSTROUTING');
  });

  it('connects Pods on the same Node through the pipeline', async () => {
    const [a1, a2] = pods as [LabPod, LabPod];
    expect(await ping(a1.netns, a2.ip)).toBe(true);
  });

  it('carries Pod traffic across Nodes once the network routes podCIDRs (the primary CNI / VPC part)', async () => {
    const [n1, n2] = nodes as [LabNode, LabNode];
    const [a1, , b1] = pods as [LabPod, LabPod, LabPod];
    expect(await ping(a1.netns, b1.ip, 2)).toBe(false);
    await n1.node.netns.exec(['ip', 'route', 'add', '10.16.2.0/24', 'via', n2.node.nodeIp]);
    await n2.node.netns.exec(['ip', 'route', 'add', '10.16.1.0/24', 'via', n1.node.nodeIp]);
    expect(await ping(a1.netns, b1.ip)).toBe(true);
    expect(await pingOutput(b1.netns, a1.ip, 3)).toMatch(/3 packets transmitted, 3 received/);
  });
});
