import { randomInt } from 'node:crypto';
import { run } from './exec.js';
import { createLinuxBridge, disableTxChecksumOffload, NET_PREFIX, uniqueTag } from './netns.js';

/**
 * The "physical network" of a lab: a Linux bridge in the root namespace that netns Nodes plug their
 * uplinks into. The root namespace gets the first address, so Nodes can reach services the test runs
 * there (kube-apiserver, the controller). Addresses come from 198.18.0.0/15, the range reserved for
 * network tests, one random /24 per underlay so parallel labs do not collide.
 */
export interface Underlay {
  readonly bridge: string;
  readonly prefixLength: 24;
  /** Root-namespace address on the bridge. */
  readonly hostIp: string;
  /** Next free Node address. */
  allocateIp(): string;
  delete(): Promise<void>;
}

export async function createUnderlay(
  options: { name?: string; thirdOctet?: number } = {},
): Promise<Underlay> {
  const name = options.name ?? `${NET_PREFIX}${uniqueTag()}ul`;
  const octet = options.thirdOctet ?? randomInt(1, 250);
  const base = `198.18.${octet}`;
  const bridge = await createLinuxBridge(name);
  const hostIp = `${base}.1`;
  await run(['ip', 'addr', 'add', `${hostIp}/24`, 'dev', name]);
  // The host's TCP to netns Nodes crosses their userspace OVS, which does not finish offloaded checksums.
  await disableTxChecksumOffload(name);
  let next = 11;
  return {
    bridge: name,
    prefixLength: 24,
    hostIp,
    allocateIp: () => `${base}.${next++}`,
    delete: () => bridge.delete(),
  };
}
