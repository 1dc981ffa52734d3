import { containerInterfaceName } from '@antrea-ts/agent';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPod, type Lab, type LabNode, type LabPod, ping, pingOutput, startLab } from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

/**
 * With userspace OVS the host end of a Pod's veth is an ordinary interface of the Node's kernel, which
 * sees every packet OVS reads from it. Unless the agent stops the kernel from answering ARP and
 * routing or delivering those packets, each one is handled twice and ping prints DUP!.
 */
describe('host end of Pod veths (userspace OVS)', () => {
  let lab: Lab;
  let nodes: LabNode[];
  let pods: LabPod[];

  beforeAll(async () => {
    lab = await startLab(
      [
        { name: 'v1', podCidr: '10.12.1.0/24' },
        { name: 'v2', podCidr: '10.12.2.0/24' },
      ],
      logger,
    );
    ({ nodes, pods } = lab);
    pods.push(await addPod(nodes[0]!, 'a1'), await addPod(nodes[0]!, 'a2'), await addPod(nodes[1]!, 'b1'));
    // Warm up ARP and the tunnel's outer MAC so that every counted ping can be answered.
    for (const ip of [pods[1]!.ip, pods[2]!.ip]) expect(await ping(pods[0]!.netns, ip)).toBe(true);
  });

  afterAll(() => lab?.stop());

  const targets: Array<[string, () => string]> = [
    ['a Pod on the same Node', () => pods[1]!.ip],
    ['a Pod on another Node', () => pods[2]!.ip],
    ['the local gateway', () => '10.12.1.1'],
    ['the local Node IP', () => nodes[0]!.node.nodeIp],
    ['the remote Node IP', () => nodes[1]!.node.nodeIp],
  ];
  it.each(targets)('ping to %s gets one reply per request, no DUP!', async (_what, target) => {
    const out = await pingOutput(pods[0]!.netns, target(), 10);
    expect(out).not.toContain('DUP!');
    expect(out).toMatch(/10 packets transmitted, 10 received/);
  });

  it('the kernel neither answers ARP nor routes on the host end', async () => {
    const n = nodes[0]!;
    const a1 = pods[0]!;
    const host = containerInterfaceName(a1.name, 'default', a1.containerId);
    const sysctl = (key: string) =>
      n.node.netns.exec(['sysctl', '-n', `net/ipv4/conf/${host}/${key}`]).then((s) => s.trim());
    expect(await sysctl('arp_ignore')).not.toBe('0');
    expect(await sysctl('forwarding')).toBe('0');
  });
});
