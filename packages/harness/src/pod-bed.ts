import { join } from 'node:path';
import type { Logger } from 'pino';
import { HarnessError } from './errors.js';
import { ManagedProcess } from './managed-process.js';
import type { Netns } from './netns.js';
import { createNetns, createVethPair, disableTxChecksumOffload, NET_PREFIX, uniqueTag } from './netns.js';
import { type OvsInstance, startOvs } from './ovs.js';
import { netdevBridgeArgs } from './ovs-commands.js';

/** A Pod the bed wires to the bridge. */
export interface PodBedPodSpec {
  /** Short name; it ends the Pod's netns name. */
  name: string;
  ip: string;
  /** Prefix length of the address on the Pod's eth0; 24 when absent. */
  prefixLength?: number;
  /** MAC of the Pod's eth0; the kernel's random one when absent. */
  mac?: string;
  /** ofport_request of the Pod's port on the bridge; OVS picks one when absent. */
  ofport?: number;
}

/** A wired Pod: a netns whose eth0 is a veth to a port of the bridge. */
export interface PodBedPod extends PodBedPodSpec {
  readonly netns: Netns;
  /** The veth end on the bridge (in the OVS netns): what Antrea calls the host interface. */
  readonly hostPort: string;
  /** The ofport OVS gave `hostPort`, read back from the database. */
  readonly ofport: number;
}

export interface PodBedOptions {
  bridge: string;
  /** OpenFlow versions of the bridge (`protocols=`); OVS's default set when absent. */
  protocols?: readonly string[];
  pods?: readonly PodBedPodSpec[];
  logger?: Logger;
}

/**
 * Pods as netns on a userspace OVS bridge: ovs-vswitchd in a private netns (userspace datapaths
 * sharing a namespace fight over tap names), a netdev bridge in fail_mode=secure (no flows, no
 * traffic), and each Pod's eth0 with its address, MAC and TX checksum offload off (userspace
 * conntrack drops the unfilled checksums a veth leaves for offload).
 */
export interface PodBed {
  readonly tag: string;
  readonly ovs: OvsInstance;
  readonly bridge: string;
  readonly pods: ReadonlyMap<string, PodBedPod>;
  /** Adds a port with Interface `settings` (`type=internal`, `ofport_request=N`...) and returns its ofport. */
  addPort(name: string, settings?: readonly string[]): Promise<number>;
  /** Runs a long-lived process (a server) in a Pod's netns, logging to `<name>.log` in the OVS run dir. */
  runIn(pod: PodBedPod, name: string, argv: readonly string[]): ManagedProcess;
  /**
   * Stops what `runIn` started, then OVS (removing its netns), then removes the Pods' netns (their
   * veths go with them). Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Names of a Pod's netns and host port. The tag keeps beds of concurrently running test files apart
 * (netns are global); the host port is numbered rather than named after the Pod so that it always
 * fits Linux's 15-character link names.
 */
export function podBedNames(tag: string, index: number, pod: string): { netns: string; hostPort: string } {
  return { netns: `${NET_PREFIX}-${tag}-pod-${pod}`, hostPort: `${NET_PREFIX}${tag}p${index}` };
}

/** `ovs-vsctl` arguments that add the bed's bridge: a netdev bridge in secure fail mode. */
export function podBedBridgeArgs(bridge: string, protocols?: readonly string[]): string[] {
  return netdevBridgeArgs(bridge, [
    'fail_mode=secure',
    ...(protocols ? [`protocols=${protocols.join(',')}`] : []),
  ]);
}

export async function startPodBed(options: PodBedOptions): Promise<PodBed> {
  const tag = uniqueTag();
  const { bridge } = options;
  const ovs = await startOvs(options.logger ? { logger: options.logger } : {});
  const pods = new Map<string, PodBedPod>();
  const podNetns: Netns[] = [];

  const addPort = async (name: string, settings: readonly string[] = []): Promise<number> => {
    await ovs.vsctl([
      'add-port',
      bridge,
      name,
      ...(settings.length ? ['--', 'set', 'interface', name, ...settings] : []),
    ]);
    const ofport = Number((await ovs.vsctl(['get', 'interface', name, 'ofport'])).trim());
    if (!(ofport > 0)) {
      const why = await ovs.vsctl(['get', 'interface', name, 'error']);
      throw new HarnessError(
        'HARNESS_COMMAND_FAILED',
        `port ${name} on ${bridge} got no ofport: ${why.trim()}`,
      );
    }
    return ofport;
  };

  const processes: ManagedProcess[] = [];
  const runIn = (pod: PodBedPod, name: string, argv: readonly string[]): ManagedProcess => {
    const child = new ManagedProcess({
      name,
      argv,
      netns: pod.netns.name,
      logFile: join(ovs.runDir, `${name}.log`),
    });
    processes.push(child);
    return child;
  };

  const stop = async (): Promise<void> => {
    for (const child of processes.splice(0)) await child.stop();
    await ovs.stop();
    for (const ns of podNetns.splice(0)) await ns.delete();
  };

  try {
    await ovs.vsctl(podBedBridgeArgs(bridge, options.protocols));
    for (const [index, spec] of (options.pods ?? []).entries()) {
      const names = podBedNames(tag, index, spec.name);
      const netns = await createNetns(names.netns);
      podNetns.push(netns);
      await createVethPair(
        { name: 'eth0', netns: netns.name, ...(spec.mac ? { mac: spec.mac } : {}) },
        { name: names.hostPort, netns: ovs.netns },
      );
      await disableTxChecksumOffload('eth0', netns.name);
      await netns.exec(['ip', 'addr', 'add', `${spec.ip}/${spec.prefixLength ?? 24}`, 'dev', 'eth0']);
      const ofport = await addPort(names.hostPort, spec.ofport ? [`ofport_request=${spec.ofport}`] : []);
      pods.set(spec.name, { ...spec, netns, hostPort: names.hostPort, ofport });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  options.logger
    ?.child({ component: 'harness-pod-bed' })
    .info({ bridge, pods: [...pods.keys()] }, 'Pod bed ready');
  return { tag, ovs, bridge, pods, addPort, runIn, stop };
}
