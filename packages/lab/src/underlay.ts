import { disableTxChecksumOffload, run, tryRun } from '@antrea-ts/harness';
import { type LabLayout, UNDERLAY_PREFIX_LENGTH } from './layout.js';

/**
 * The lab's "physical network": a Linux bridge in the root namespace holding the host address
 * (apiserver and controller listen there) and every Node's uplink. Idempotent: an existing bridge
 * from a crashed lab is reused.
 */
export async function ensureUnderlay(layout: LabLayout): Promise<void> {
  const bridge = layout.underlayBridge;
  if (!(await tryRun(['ip', 'link', 'show', bridge]))) {
    await run(['ip', 'link', 'add', bridge, 'type', 'bridge']);
  }
  await tryRun(['ip', 'addr', 'add', `${layout.hostIp}/${UNDERLAY_PREFIX_LENGTH}`, 'dev', bridge]);
  await run(['ip', 'link', 'set', bridge, 'up']);
  // The host's TCP to netns Nodes crosses their userspace OVS, which does not finish offloaded checksums.
  await disableTxChecksumOffload(bridge);
}

export async function deleteUnderlay(layout: LabLayout): Promise<void> {
  await tryRun(['ip', 'link', 'delete', layout.underlayBridge]);
}
