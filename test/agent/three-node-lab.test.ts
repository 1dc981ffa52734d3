import { createNetns, createVethPair, type Netns, run, uniqueTag, waitFor } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPod, type Lab, type LabNode, type LabPod, ping, startLab } from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

describe('three-Node lab: Encap (Geneve) on userspace OVS', () => {
  let lab: Lab | undefined;
  let external: Netns;
  let externalIp: string;
  let nodes: LabNode[] = [];
  let pods: LabPod[] = [];

  beforeAll(async () => {
    lab = await startLab(
      [
        { name: 'n1', podCidr: '10.10.1.0/24' },
        { name: 'n2', podCidr: '10.10.2.0/24' },
        { name: 'n3', podCidr: '10.10.3.0/24' },
      ],
      logger,
      { crds: ['crd-antreaagentinfo.yaml'] },
    );
    ({ nodes, pods } = lab);
    // An "external host" on the underlay with no route to Pod CIDRs: only SNAT lets it answer.
    external = await createNetns(`ats-${uniqueTag()}-ext`);
    const peer = `ats${uniqueTag()}x`;
    await createVethPair({ name: 'eth0', netns: external.name }, { name: peer });
    await run(['ip', 'link', 'set', peer, 'master', lab.underlay.bridge]);
    externalIp = lab.underlay.allocateIp();
    await external.exec(['ip', 'addr', 'add', `${externalIp}/24`, 'dev', 'eth0']);
    pods.push(
      await addPod(nodes[0]!, 'a1'),
      await addPod(nodes[0]!, 'a2'),
      await addPod(nodes[1]!, 'b1'),
      await addPod(nodes[2]!, 'c1'),
    );
  });

  afterAll(async () => {
    await external?.delete();
    await lab?.stop();
  });

  it('gives Pods addresses from their Node podCIDR, gateway first IP', () => {
    const [a1, a2, b1] = pods as [LabPod, LabPod, LabPod];
    expect(a1.ip).toMatch(/^10\.10\.1\.\d+$/);
    expect(a2.ip).toMatch(/^10\.10\.1\.\d+$/);
    expect(b1.ip).toMatch(/^10\.10\.2\.\d+$/);
    expect(a1.ip).not.toBe('10.10.1.1');
  });

  it('Pod to Pod on the same Node, and ARP resolves', async () => {
    const [a1, a2] = pods as [LabPod, LabPod];
    expect(await ping(a1.netns, a2.ip)).toBe(true);
    const neigh = await a1.netns.exec(['ip', 'neigh', 'show', a2.ip]);
    expect(neigh).toMatch(/lladdr [0-9a-f:]{17}/);
  });

  it('Pod to its gateway', async () => {
    const [a1] = pods as [LabPod];
    expect(await ping(a1.netns, '10.10.1.1')).toBe(true);
  });

  it('Pod to Pod across Nodes through Geneve, both directions', async () => {
    const [a1, , b1] = pods as [LabPod, LabPod, LabPod];
    expect(await ping(a1.netns, b1.ip)).toBe(true);
    expect(await ping(b1.netns, a1.ip)).toBe(true);
  });

  it('every Pod reaches every other Pod across three Nodes', async () => {
    for (const from of pods) {
      for (const to of pods) {
        if (from !== to) expect(await ping(from.netns, to.ip), `${from.name} -> ${to.name}`).toBe(true);
      }
    }
    // Each Node has a tunnel flow for each of the two others.
    for (const n of nodes) {
      const flows = await n.node.ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', 'br-int']);
      expect(flows.match(/->tun_dst/g)).toHaveLength(2);
    }
  });

  it('Node to a remote Pod through the host route and the ARP responder', async () => {
    const [, , b1] = pods as [LabPod, LabPod, LabPod];
    expect(await ping(nodes[0]!.node.netns, b1.ip)).toBe(true);
    const route = await nodes[0]!.node.netns.exec(['ip', 'route', 'show', '10.10.2.0/24']);
    expect(route).toContain('via 10.10.2.1 dev antrea-gw0');
    const neigh = await nodes[0]!.node.netns.exec(['ip', 'neigh', 'show', '10.10.2.1']);
    expect(neigh).toContain('aa:bb:cc:dd:ee:ff');
  });

  it('Pod to an external host, masqueraded to the Node IP', async () => {
    const [a1] = pods as [LabPod];
    expect(await ping(a1.netns, externalIp)).toBe(true);
    const rules = await nodes[0]!.node.netns.exec(['iptables', '-t', 'nat', '-S', 'ANTREA-POSTROUTING']);
    expect(rules).toContain('-s 10.10.1.0/24 ! -o antrea-gw0');
    expect(rules).toContain('MASQUERADE');
  });

  it('TCP across Nodes through conntrack', async () => {
    const [a1, , b1] = pods as [LabPod, LabPod, LabPod];
    const server = b1.netns.exec(['iperf3', '-s', '-1', '-p', '7777'], { timeoutMs: 60_000 });
    // The client connects once: wait until the server listens (a fixed pause can be too short under load).
    await waitFor('iperf3 listening', async () =>
      (await b1.netns.exec(['ss', '-Hltn', 'sport = :7777'])).includes('LISTEN'),
    );
    const out = JSON.parse(await a1.netns.exec(['iperf3', '-c', b1.ip, '-p', '7777', '-t', '1', '-J'])) as {
      end: { sum_received: { bytes: number } };
    };
    await server;
    expect(out.end.sum_received.bytes).toBeGreaterThan(0);
  });
});
