import type { BridgeClient } from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';
import { type CommandRunner, inNetnsPath } from '../net/command-runner.js';
import { podFlows } from '../openflow/features/pod-connectivity.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import type { Ipam } from './host-local-ipam.js';
import { containerInterfaceName, randomMac } from './interface-name.js';
import { type InterfaceStore, type PodInterface, podExternalIds } from './interface-store.js';

export interface PodRequest {
  readonly containerId: string;
  readonly netns: string;
  readonly ifName: string;
  readonly podName: string;
  readonly podNamespace: string;
}

export interface PodConfiguratorDeps {
  readonly bridgeName: string;
  readonly mtu: number;
  readonly gatewayMac: string;
  readonly runner: CommandRunner;
  readonly bridges: BridgeClient;
  readonly flows: FlowCache;
  readonly ctx: FlowContext;
  readonly ipam: Ipam;
  readonly store: InterfaceStore;
  readonly logger: Logger;
  readonly randomBytes: (n: number) => Buffer;
  /** Adds the Pod's OVS port (e.g. through a PortBatcher); bridges.addPort when absent. */
  readonly addPort?: (spec: { name: string; externalIds: Record<string, string> }) => Promise<unknown>;
}

export const podFlowOwner = (containerId: string): string => `pod/${containerId}`;

/**
 * Creates the veth pair with the Pod end already in the Pod's namespace, then configures the Pod
 * end: addresses, default route, and TX checksum offload off (userspace conntrack verifies
 * checksums a veth would leave to offload). $1 host name, $2 MTU, $3 host MAC, $4 Pod ifname,
 * $5 Pod MAC, $6 Pod netns path, $7 address/prefix, $8 gateway.
 */
/** Linux interface names: at most 15 bytes, no whitespace or slashes (kept to the safe set). */
const IFNAME = /^[a-zA-Z0-9_.-]{1,15}$/;

export const POD_INTERFACE_SCRIPT = [
  'set -e',
  'ip link add "$1" mtu "$2" address "$3" type veth peer name "$4" address "$5" mtu "$2" netns "$6"',
  'ip link set "$1" up',
  'printf "link set lo up\\nlink set %s up\\naddr add %s dev %s\\nroute replace default via %s dev %s\\n" "$4" "$7" "$4" "$8" "$4" | nsenter --net="$6" -- ip -batch -',
  'nsenter --net="$6" -- ethtool -K "$4" tx off >/dev/null',
].join('\n');

/**
 * Wires a Pod to br-int (Antrea pkg/agent/cniserver/pod_configuration.go): IP from IPAM, veth with
 * one end in the Pod, addresses and default route in the Pod, OVS port carrying the Pod identity,
 * Pod flows. A failed ADD undoes what it did; DEL is idempotent.
 */
export class PodConfigurator {
  private readonly log: Logger;

  constructor(private readonly deps: PodConfiguratorDeps) {
    this.log = deps.logger.child({ component: 'pod-configurator' });
  }

  async add(req: PodRequest): Promise<PodInterface> {
    const { deps } = this;
    const existing = deps.store.get(req.containerId);
    if (existing) return existing;
    if (!IFNAME.test(req.ifName)) {
      throw new AgentError('AGENT_INTERFACE_FAILED', `invalid interface name ${JSON.stringify(req.ifName)}`);
    }
    const log = this.log.child({ container: req.containerId, pod: `${req.podNamespace}/${req.podName}` });
    const hostIfName = containerInterfaceName(req.podName, req.podNamespace, req.containerId);
    const undo: Array<() => Promise<unknown>> = [];
    const t0 = performance.now();
    const steps: Record<string, number> = {};
    const mark = (name: string) => {
      steps[name] = Math.round(performance.now() - t0);
    };
    try {
      const ipam = await deps.ipam.add(req.containerId, req.ifName, req.netns);
      undo.push(() => deps.ipam.del(req.containerId, req.ifName, req.netns));
      mark('ipam');
      const ip = ipam.address.split('/')[0]!;
      const mac = randomMac(deps.randomBytes);
      const hostMac = randomMac(deps.randomBytes);
      // One shell per Pod does all the interface work, so the agent's event loop forks once (not
      // five times) per ADD; values travel as positional parameters, never inside the script.
      try {
        await deps.runner.run([
          'sh',
          '-c',
          POD_INTERFACE_SCRIPT,
          'antrea-pod',
          hostIfName,
          String(deps.mtu),
          hostMac,
          req.ifName,
          mac,
          req.netns,
          ipam.address,
          ipam.gateway,
        ]);
      } catch (err) {
        // The veth may exist: the undo below removes it with the rest.
        undo.push(() => deps.runner.run(['ip', 'link', 'del', hostIfName]));
        throw new AgentError(
          'AGENT_INTERFACE_FAILED',
          `configuring the interface of ${req.containerId}: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      undo.push(() => deps.runner.run(['ip', 'link', 'del', hostIfName]));
      mark('interface');
      const identity = {
        containerId: req.containerId,
        podName: req.podName,
        podNamespace: req.podNamespace,
        ifName: req.ifName,
        netns: req.netns,
        ipCidr: ipam.address,
        ip,
        mac,
      };
      const portSpec = { name: hostIfName, externalIds: podExternalIds(identity) };
      await (deps.addPort ? deps.addPort(portSpec) : deps.bridges.addPort(deps.bridgeName, portSpec));
      undo.push(() => deps.bridges.deletePort(deps.bridgeName, hostIfName));
      mark('ovsPort');
      const ofport = await deps.bridges.waitForOfport(hostIfName);
      mark('ofport');
      const pod: PodInterface = { ...identity, hostIfName, ofport, hostMac };
      await deps.flows.replace(podFlowOwner(req.containerId), podFlows(deps.ctx, pod, deps.gatewayMac));
      deps.store.add(pod);
      mark('flows');
      log.info({ ip: ipam.address, ofport, hostIfName, ms: steps }, 'Pod interface configured');
      return pod;
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'ADD failed; rolling back');
      for (const step of undo.reverse()) await step().catch(() => undefined);
      if (AgentError.is(err)) throw err;
      throw new AgentError('AGENT_INTERFACE_FAILED', (err as Error).message, { cause: err });
    }
  }

  /** Removes everything ADD made. Succeeds when there is nothing left to remove. */
  async del(req: Pick<PodRequest, 'containerId' | 'netns' | 'ifName'>): Promise<void> {
    const { deps } = this;
    const pod = deps.store.get(req.containerId);
    if (pod) {
      await deps.flows.remove(podFlowOwner(req.containerId));
      await deps.bridges.deletePort(deps.bridgeName, pod.hostIfName);
      // Deleting our end removes the pair, wherever the Pod end is (or if its netns is gone).
      await deps.runner.run(['ip', 'link', 'del', pod.hostIfName]).catch(() => undefined);
      deps.store.delete(req.containerId);
      this.log.info({ container: req.containerId, hostIfName: pod.hostIfName }, 'Pod interface removed');
    }
    await deps.ipam.del(req.containerId, pod?.ifName ?? req.ifName, req.netns || pod?.netns || '');
  }

  /** Verifies the Pod's interface is as ADD left it (CNI CHECK). */
  async check(req: PodRequest): Promise<void> {
    const { deps } = this;
    const pod = deps.store.get(req.containerId);
    const fail = (why: string): never => {
      throw new AgentError('AGENT_CHECK_FAILED', `container ${req.containerId}: ${why}`);
    };
    if (!pod) return fail('no interface configured');
    if (pod.ifName !== req.ifName) fail(`interface is ${pod.ifName}, not ${req.ifName}`);
    let links: Array<{
      ifname: string;
      address?: string;
      addr_info?: Array<{ local: string; prefixlen: number }>;
    }>;
    try {
      links = JSON.parse(
        await deps.runner.run(inNetnsPath(req.netns, ['ip', '-j', 'addr', 'show', 'dev', req.ifName])),
      );
    } catch (err) {
      return fail(`${req.ifName} missing in ${req.netns}: ${(err as Error).message}`);
    }
    const link = links[0];
    if (link?.address !== pod.mac) fail(`MAC is ${link?.address}, expected ${pod.mac}`);
    if (!link?.addr_info?.some((a) => `${a.local}/${a.prefixlen}` === pod.ipCidr))
      fail(`address ${pod.ipCidr} missing`);
    const iface = await deps.bridges.getInterface(pod.hostIfName);
    if (!iface || iface.ofport === undefined || iface.ofport < 0) fail(`OVS port ${pod.hostIfName} missing`);
    try {
      await deps.ipam.check(req.containerId, req.ifName, req.netns);
    } catch (err) {
      fail(`IPAM: ${(err as Error).message}`);
    }
  }
}
