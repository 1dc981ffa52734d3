import type { BridgeClient } from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';
import { type CommandRunner, inNetnsPath } from '../net/command-runner.js';
import { IpBatcher } from '../net/ip-batcher.js';
import { LinkDeleter } from '../net/link-deleter.js';
import { ipInNetns, netnsPathExists } from '../net/netns.js';
import { hostVethSysctls, SysctlBatcher } from '../net/sysctl-batcher.js';
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
  /** Turn TX checksum offload off on the Pod end (see AgentConfig.disableTxChecksumOffload). */
  readonly disableTxChecksumOffload: boolean;
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
  /** Removes the Pod's OVS port (e.g. through a PortBatcher); bridges.deletePort when absent. */
  readonly deletePort?: (name: string) => Promise<unknown>;
  /** Whether a netns path exists (default: the file is there). */
  readonly netnsExists?: (path: string) => Promise<boolean>;
}

function interfaceError(containerId: string, err: unknown): AgentError {
  return new AgentError(
    'AGENT_INTERFACE_FAILED',
    `configuring the interface of ${containerId}: ${(err as Error).message}`,
    { cause: err },
  );
}

export const podFlowOwner = (containerId: string): string => `pod/${containerId}`;

/** Linux interface names: at most 15 bytes, no whitespace or slashes (kept to the safe set). */
const IFNAME = /^[a-zA-Z0-9_.-]{1,15}$/;
/** Netns paths that can go into an `ip -batch` line as one word (runtimes use /var/run/netns/..., /proc/<pid>/ns/net). */
const NETNS_PATH = /^\/[a-zA-Z0-9_.:@+/-]*$/;

/**
 * The veth pair, created with the host end up and the Pod end already in the Pod's namespace (never
 * moved: a move waits for an RCU grace period, serialized across Pods, about 17 ms each), as one
 * line of a shared `ip -batch` (see IpBatcher).
 */
export function vethLine(o: {
  hostIfName: string;
  hostMac: string;
  ifName: string;
  mac: string;
  mtu: number;
  netns: string;
}): string {
  return `link add ${o.hostIfName} up mtu ${o.mtu} address ${o.hostMac} type veth peer name ${o.ifName} mtu ${o.mtu} address ${o.mac} netns ${o.netns}`;
}

/** What one `ip -batch` in the Pod's namespace does: loopback and the Pod end up, address, default route. */
export function podSideBatch(o: { ifName: string; address: string; gateway: string }): string {
  return [
    'link set lo up',
    `link set ${o.ifName} up`,
    `addr add ${o.address} dev ${o.ifName}`,
    `route replace default via ${o.gateway} dev ${o.ifName}`,
    '',
  ].join('\n');
}

/**
 * Wires a Pod to br-int (Antrea pkg/agent/cniserver/pod_configuration.go): IP from IPAM, veth with
 * one end in the Pod, addresses and default route in the Pod, OVS port carrying the Pod identity,
 * Pod flows. A failed ADD undoes what it did; DEL is idempotent.
 */
export class PodConfigurator {
  private readonly log: Logger;
  private readonly links: IpBatcher;
  private readonly sysctls: SysctlBatcher;
  private readonly deleter: LinkDeleter;

  constructor(private readonly deps: PodConfiguratorDeps) {
    this.log = deps.logger.child({ component: 'pod-configurator' });
    this.links = new IpBatcher(deps.runner);
    this.sysctls = new SysctlBatcher(deps.runner);
    this.deleter = new LinkDeleter(deps.runner);
  }

  private addPort(spec: { name: string; externalIds: Record<string, string> }): Promise<unknown> {
    const { deps } = this;
    return deps.addPort ? deps.addPort(spec) : deps.bridges.addPort(deps.bridgeName, spec);
  }

  private deletePort(name: string): Promise<unknown> {
    const { deps } = this;
    return deps.deletePort ? deps.deletePort(name) : deps.bridges.deletePort(deps.bridgeName, name);
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
      if (!NETNS_PATH.test(req.netns)) {
        throw new AgentError('AGENT_INTERFACE_FAILED', `unsupported netns path ${JSON.stringify(req.netns)}`);
      }
      // A vanished namespace would abort the shared ip batch for every Pod in it: check first.
      if (!(await (deps.netnsExists ?? netnsPathExists)(req.netns))) {
        throw new AgentError('AGENT_INTERFACE_FAILED', `netns ${req.netns} does not exist`);
      }
      const mac = randomMac(deps.randomBytes);
      const hostMac = randomMac(deps.randomBytes);
      // What does not need the Pod's address runs while IPAM (the host-local binary, serialized by
      // its file lock) does: the veth pair, the host end's sysctls, and TX checksum offload off on
      // the Pod end where the datapath needs it (userspace OVS forwards what it reads from the host
      // end as is: a checksum left to offload would arrive unfilled).
      const link = this.links
        .run([vethLine({ hostIfName, hostMac, ifName: req.ifName, mac, mtu: deps.mtu, netns: req.netns })])
        .then(() =>
          Promise.all([
            this.sysctls.set(hostVethSysctls(hostIfName)),
            deps.disableTxChecksumOffload
              ? deps.runner.run(inNetnsPath(req.netns, ['ethtool', '-K', req.ifName, 'tx', 'off']))
              : undefined,
          ]),
        );
      const [ipamResult, veth] = await Promise.allSettled([
        deps.ipam.add(req.containerId, req.ifName, req.netns),
        link,
      ]);
      if (ipamResult.status === 'fulfilled')
        undo.push(() => deps.ipam.del(req.containerId, req.ifName, req.netns));
      // Even a failed add may have made the pair (or found one of ours left over): remove it.
      undo.push(() => this.deleter.delete(hostIfName));
      if (ipamResult.status === 'rejected') throw ipamResult.reason;
      mark('ipamAndVeth');
      if (veth.status === 'rejected') throw interfaceError(req.containerId, veth.reason);
      const ipam = ipamResult.value;
      const identity = {
        containerId: req.containerId,
        podName: req.podName,
        podNamespace: req.podNamespace,
        ifName: req.ifName,
        netns: req.netns,
        ipCidr: ipam.address,
        ip: ipam.address.split('/')[0]!,
        mac,
      };
      // The Pod side (address, route) and the OVS side (port, flows) need only the address now.
      const podSide = deps.runner
        .run(ipInNetns(req.netns, ['-batch', '-']), {
          input: podSideBatch({ ifName: req.ifName, address: ipam.address, gateway: ipam.gateway }),
        })
        .then(
          () => mark('podSide'),
          (err: unknown) => {
            throw interfaceError(req.containerId, err);
          },
        );
      const ovsSide = (async () => {
        // Undone like DEL undoes it, and registered first: an add that failed may still have made
        // the port (a reply lost after the commit), and deleting a missing port does nothing.
        undo.push(() => this.deletePort(hostIfName));
        await this.addPort({ name: hostIfName, externalIds: podExternalIds(identity) });
        mark('ovsPort');
        const ofport = await deps.bridges.waitForOfport(hostIfName);
        mark('ofport');
        const pod: PodInterface = { ...identity, hostIfName, ofport, hostMac };
        await deps.flows.replace(podFlowOwner(req.containerId), podFlows(deps.ctx, pod, deps.gatewayMac));
        undo.push(() => deps.flows.remove(podFlowOwner(req.containerId)));
        mark('flows');
        return pod;
      })();
      // Both sides settle before any undo runs: one must not roll back while the other still works.
      const [podSideResult, ovsResult] = await Promise.allSettled([podSide, ovsSide]);
      if (podSideResult.status === 'rejected') throw podSideResult.reason;
      if (ovsResult.status === 'rejected') throw ovsResult.reason;
      const pod = ovsResult.value;
      deps.store.add(pod);
      const { ofport } = pod;
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
    const unwire = async (pod: PodInterface) => {
      await deps.flows.remove(podFlowOwner(req.containerId));
      await this.deletePort(pod.hostIfName);
      // Deleting our end removes the pair, wherever the Pod end is (or if its netns is gone).
      await this.deleter.delete(pod.hostIfName).catch(() => undefined);
      deps.store.delete(req.containerId);
      this.log.info({ container: req.containerId, hostIfName: pod.hostIfName }, 'Pod interface removed');
    };
    // The address goes back to IPAM while the interface is taken down: neither needs the other.
    await Promise.all([
      pod ? unwire(pod) : undefined,
      deps.ipam.del(req.containerId, pod?.ifName ?? req.ifName, req.netns || pod?.netns || ''),
    ]);
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
        await deps.runner.run(ipInNetns(req.netns, ['-j', 'addr', 'show', 'dev', req.ifName])),
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
