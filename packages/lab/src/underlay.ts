import { run, tryRun } from '@antrea-ts/harness';
import { UNDERLAY_BRIDGE, UNDERLAY_HOST_IP, UNDERLAY_PREFIX_LENGTH } from './layout.js';

/**
 * The lab's "physical network": a Linux bridge in the root namespace holding the host address
 * (apiserver and controller listen there) and every Node's uplink. Idempotent: an existing bridge
 * from a crashed lab is reused.
 */
export async function ensureUnderlay(): Promise<void> {
  if (!(await tryRun(['ip', 'link', 'show', UNDERLAY_BRIDGE]))) {
    await run(['ip', 'link', 'add', UNDERLAY_BRIDGE, 'type', 'bridge']);
  }
  await tryRun([
    'ip',
    'addr',
    'add',
    `${UNDERLAY_HOST_IP}/${UNDERLAY_PREFIX_LENGTH}`,
    'dev',
    UNDERLAY_BRIDGE,
  ]);
  await run(['ip', 'link', 'set', UNDERLAY_BRIDGE, 'up']);
  // The host's TCP to netns Nodes crosses their userspace OVS, which does not finish offloaded checksums.
  await run(['ethtool', '-K', UNDERLAY_BRIDGE, 'tx', 'off']);
}

export async function deleteUnderlay(): Promise<void> {
  await tryRun(['ip', 'link', 'delete', UNDERLAY_BRIDGE]);
}
