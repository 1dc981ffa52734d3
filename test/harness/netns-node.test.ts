import {
  createNetns,
  createNetnsNode,
  createUnderlay,
  createVethPair,
  disableTxChecksumOffload,
  type Netns,
  type NetnsNode,
  netdevBridgeArgs,
  type Underlay,
  uniqueTag,
} from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

async function macOf(netns: Netns, dev: string): Promise<string> {
  const out = await netns.exec(['ip', '-o', 'link', 'show', dev]);
  const mac = /link\/ether ([0-9a-f:]+)/.exec(out)?.[1];
  if (!mac) throw new Error(`no MAC for ${dev}`);
  return mac;
}

// Proves the lab topology that agents build on: netns Nodes on an underlay, the Node IP on br-phy,
// and a flow-based Geneve port on br-int that carries Pod traffic between Nodes.
describe('netns Nodes on an underlay', () => {
  let underlay: Underlay;
  const nodes: NetnsNode[] = [];
  const pods: Netns[] = [];

  beforeAll(async () => {
    underlay = await createUnderlay();
    for (const name of ['n1', 'n2']) nodes.push(await createNetnsNode({ name, underlay }));
  });

  afterAll(async () => {
    for (const pod of pods) await pod.delete();
    for (const node of nodes) await node.delete();
    await underlay?.delete();
  });

  it('reaches the other Node and the host over the underlay', async () => {
    const [a, b] = nodes as [NetnsNode, NetnsNode];
    await a.netns.exec(['ping', '-c', '1', '-W', '2', b.nodeIp]);
    await a.netns.exec(['ping', '-c', '1', '-W', '2', underlay.hostIp]);
  });

  it('carries Pod traffic between Nodes through a flow-based Geneve port', async () => {
    for (const [i, node] of nodes.entries()) {
      const n = i + 1;
      await node.ovs.vsctl([
        ...netdevBridgeArgs('br-int', ['protocols=OpenFlow15', 'fail_mode=secure']),
        '--',
        'add-port',
        'br-int',
        'antrea-tun0',
        '--',
        'set',
        'interface',
        'antrea-tun0',
        'type=geneve',
        'options:remote_ip=flow',
        'options:key=flow',
        'ofport_request=1',
        '--',
        'add-port',
        'br-int',
        'antrea-gw0',
        '--',
        'set',
        'interface',
        'antrea-gw0',
        'type=internal',
        'ofport_request=2',
      ]);
      await node.netns.exec(['ip', 'addr', 'add', `10.244.${n}.1/24`, 'dev', 'antrea-gw0']);
      await node.netns.exec(['ip', 'link', 'set', 'antrea-gw0', 'up']);
      const pod = await createNetns(`ats-${uniqueTag()}-p${n}`);
      pods.push(pod);
      const hostSide = `p${uniqueTag()}`;
      await createVethPair({ name: 'eth0', netns: pod.name }, { name: hostSide, netns: node.netns.name });
      await disableTxChecksumOffload('eth0', pod.name);
      await pod.exec(['ip', 'addr', 'add', `10.244.${n}.2/24`, 'dev', 'eth0']);
      await pod.exec(['ip', 'route', 'add', 'default', 'via', `10.244.${n}.1`]);
      await node.ovs.vsctl([
        'add-port',
        'br-int',
        hostSide,
        '--',
        'set',
        'interface',
        hostSide,
        'ofport_request=3',
      ]);
    }
    for (const [i, node] of nodes.entries()) {
      const n = i + 1;
      const peer = nodes[1 - i]!;
      const podMac = await macOf(pods[i]!, 'eth0');
      const gwMac = await macOf(node.netns, 'antrea-gw0');
      const flows = [
        'priority=200,arp,in_port=3,actions=output:2',
        'priority=200,arp,in_port=2,actions=output:3',
        `priority=200,ip,in_port=3,nw_dst=10.244.${2 - i}.0/24,actions=set_field:${peer.nodeIp}->tun_dst,` +
          'set_field:aa:bb:cc:dd:ee:ff->eth_dst,dec_ttl,output:1',
        `priority=200,ip,in_port=1,nw_dst=10.244.${n}.2,actions=set_field:${gwMac}->eth_src,` +
          `set_field:${podMac}->eth_dst,output:3`,
      ];
      for (const flow of flows) await node.ovs.ofctl(['-O', 'OpenFlow15', 'add-flow', 'br-int', flow]);
    }
    // The first packet can be lost while ovs-vswitchd resolves the remote Node's MAC for the outer header.
    await pods[0]!.exec(['ping', '-c', '3', '-i', '0.2', '-W', '2', '10.244.2.2']).catch(() => undefined);
    const out = await pods[0]!.exec(['ping', '-c', '2', '-W', '2', '10.244.2.2']);
    expect(out).toContain('2 received');
  });
});
