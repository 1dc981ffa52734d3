import { randomBytes } from 'node:crypto';
import { registerLinkCleanup, registerNetnsCleanup } from './cleanup-registry.js';
import { run, tryRun } from './exec.js';

/** Every netns and root-namespace link the harness makes starts with this, for the leak check. */
export const NET_PREFIX = 'ats';

/** A short random tag that keeps names of parallel runs apart and fits Linux's 15-char link names. */
export function uniqueTag(): string {
  return randomBytes(3).toString('hex');
}

export interface Netns {
  readonly name: string;
  exec(argv: readonly string[], options?: { input?: string; timeoutMs?: number }): Promise<string>;
  delete(): Promise<void>;
}

/** Creates a network namespace with loopback up. */
export async function createNetns(name: string): Promise<Netns> {
  await run(['ip', 'netns', 'add', name]);
  const unregister = registerNetnsCleanup(name);
  await run(['ip', 'link', 'set', 'lo', 'up'], { netns: name });
  return {
    name,
    exec: (argv, options) => run(argv, { netns: name, ...options }),
    async delete() {
      await tryRun(['ip', 'netns', 'delete', name]);
      unregister();
    },
  };
}

export interface VethEnd {
  name: string;
  /** Namespace the end is moved into; the root namespace when absent. */
  netns?: string | undefined;
  mac?: string;
  mtu?: number;
}

/**
 * Creates a veth pair and moves each end where it belongs. The pair is created under temporary
 * root-namespace names so that wanted names (eth0 in several namespaces) never clash.
 */
export async function createVethPair(a: VethEnd, b: VethEnd): Promise<void> {
  const tag = uniqueTag();
  const tmpA = `${NET_PREFIX}t${tag}a`;
  const tmpB = `${NET_PREFIX}t${tag}b`;
  await run(['ip', 'link', 'add', tmpA, 'type', 'veth', 'peer', 'name', tmpB]);
  try {
    for (const [tmp, end] of [
      [tmpA, a],
      [tmpB, b],
    ] as const) {
      if (end.netns) await run(['ip', 'link', 'set', tmp, 'netns', end.netns]);
      const ns = end.netns;
      await run(['ip', 'link', 'set', tmp, 'name', end.name], { netns: ns });
      if (end.mac) await run(['ip', 'link', 'set', end.name, 'address', end.mac], { netns: ns });
      if (end.mtu) await run(['ip', 'link', 'set', end.name, 'mtu', String(end.mtu)], { netns: ns });
      await run(['ip', 'link', 'set', end.name, 'up'], { netns: ns });
      if (!ns) registerLinkCleanup(end.name);
    }
  } catch (error) {
    await tryRun(['ip', 'link', 'delete', tmpA]);
    throw error;
  }
}

/** A Linux bridge in the root namespace: the "underlay switch" that joins netns Nodes. */
export async function createLinuxBridge(name: string): Promise<{ name: string; delete(): Promise<void> }> {
  await run(['ip', 'link', 'add', name, 'type', 'bridge']);
  const unregister = registerLinkCleanup(name);
  await run(['ip', 'link', 'set', name, 'up']);
  return {
    name,
    async delete() {
      await tryRun(['ip', 'link', 'delete', name]);
      unregister();
    },
  };
}

/**
 * Turns off TX checksum offload on a veth end. Userspace OVS conntrack verifies TCP/UDP checksums,
 * and a veth leaves them unfilled for offload, so without this TCP through ct() flows times out.
 */
export async function disableTxChecksumOffload(dev: string, netns?: string): Promise<void> {
  await run(['ethtool', '-K', dev, 'tx', 'off'], { netns });
}
