import type { Logger } from 'pino';
import { run } from './exec.js';
import {
  createNetns,
  createVethPair,
  disableTxChecksumOffload,
  NET_PREFIX,
  type Netns,
  uniqueTag,
} from './netns.js';
import { type OvsInstance, startOvs } from './ovs.js';
import { netdevBridgeArgs } from './ovs-commands.js';
import type { Underlay } from './underlay.js';

/** Bridge that holds a netns Node's uplink and its Node IP (see createNetnsNode). */
export const TRANSPORT_BRIDGE = 'br-phy';

/**
 * Makes the Node's uplink (`eth0`, already in the netns) a port of the netdev bridge br-phy, puts
 * the Node IP on br-phy and routes through `gateway`; see createNetnsNode for why. Shared with the
 * lab, whose Nodes are wired the same way.
 */
export async function setUpTransportBridge(options: {
  netns: string;
  vsctl: (args: readonly string[]) => Promise<string>;
  /** Root-namespace end of the uplink veth. */
  uplinkPeer: string;
  /** Node IP with the underlay's prefix length. */
  nodeCidr: string;
  gateway: string;
}): Promise<void> {
  const { netns } = options;
  await options.vsctl([
    ...netdevBridgeArgs(TRANSPORT_BRIDGE),
    '--',
    '--may-exist',
    'add-port',
    TRANSPORT_BRIDGE,
    'eth0',
  ]);
  await run(['ip', 'addr', 'add', options.nodeCidr, 'dev', TRANSPORT_BRIDGE], { netns });
  await run(['ip', 'link', 'set', TRANSPORT_BRIDGE, 'up'], { netns });
  // TCP between the Node and the host (kube-apiserver) crosses userspace OVS, which forwards the
  // partial checksums of offloaded packets unfinished: compute them in software on both ends.
  await disableTxChecksumOffload(TRANSPORT_BRIDGE, netns);
  await disableTxChecksumOffload(options.uplinkPeer);
  await run(['ip', 'route', 'add', 'default', 'via', options.gateway, 'dev', TRANSPORT_BRIDGE], { netns });
}

export interface NetnsNode {
  readonly name: string;
  readonly netns: Netns;
  readonly nodeIp: string;
  readonly ovs: OvsInstance;
  /** Root-namespace end of the uplink veth, enslaved to the underlay bridge. */
  readonly uplinkPeer: string;
  delete(): Promise<void>;
}

/**
 * A Kubernetes "Node" as a network namespace with its own userspace Open vSwitch.
 *
 * Userspace tunnels (flow-based Geneve on br-int) are encapsulated by ovs-vswitchd itself, which
 * routes and ARPs for the outer header through an OVS bridge that owns the Node IP. So the uplink
 * veth (eth0) is a port of the netdev bridge `br-phy`, and the Node IP sits on br-phy's internal
 * port, with the default route through the underlay's host address. With a kernel datapath a real
 * Node needs none of this; it is the price of running without the OVS kernel module.
 */
export async function createNetnsNode(options: {
  name: string;
  underlay: Underlay;
  netnsName?: string;
  logger?: Logger;
}): Promise<NetnsNode> {
  const netnsName = options.netnsName ?? `${NET_PREFIX}-${uniqueTag()}-${options.name}`;
  const netns = await createNetns(netnsName);
  const uplinkPeer = `${NET_PREFIX}${uniqueTag()}u`;
  let ovs: OvsInstance | undefined;
  try {
    await createVethPair({ name: 'eth0', netns: netnsName }, { name: uplinkPeer });
    await run(['ip', 'link', 'set', uplinkPeer, 'master', options.underlay.bridge]);
    ovs = await startOvs({ netns: netnsName, ...(options.logger ? { logger: options.logger } : {}) });
    const nodeIp = options.underlay.allocateIp();
    await setUpTransportBridge({
      netns: netnsName,
      vsctl: ovs.vsctl,
      uplinkPeer,
      nodeCidr: `${nodeIp}/${options.underlay.prefixLength}`,
      gateway: options.underlay.hostIp,
    });
    const started = ovs;
    return {
      name: options.name,
      netns,
      nodeIp,
      ovs: started,
      uplinkPeer,
      async delete() {
        await started.stop();
        await netns.delete();
        await run(['ip', 'link', 'delete', uplinkPeer]).catch(() => undefined);
      },
    };
  } catch (error) {
    await ovs?.stop();
    await netns.delete();
    await run(['ip', 'link', 'delete', uplinkPeer]).catch(() => undefined);
    throw error;
  }
}
