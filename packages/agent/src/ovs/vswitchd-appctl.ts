import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '../net/command-runner.js';

/** Runs one `ovs-appctl` command against the Node's ovs-vswitchd and returns its output. */
export type VswitchdAppctl = (args: readonly string[]) => Promise<string>;

/**
 * `ovs-appctl` aimed at the local ovs-vswitchd. Its control socket is `ovs-vswitchd.ctl` in the run
 * directory when the daemon was started with that --unixctl (the lab and test Nodes), else OVS's
 * default `ovs-vswitchd.<pid>.ctl`, which ovs-appctl finds through the pidfile in OVS_RUNDIR.
 * Looked up at each call, so a restarted ovs-vswitchd is found again.
 * @param ovsRunDir the daemon's run directory; none uses OVS's default (/var/run/openvswitch).
 */
export function vswitchdAppctl(
  runner: CommandRunner,
  ovsRunDir = '/var/run/openvswitch',
  timeoutMs = 10_000,
): VswitchdAppctl {
  const fixedSocket = join(ovsRunDir, 'ovs-vswitchd.ctl');
  return async (args) => {
    const target = await access(fixedSocket).then(
      () => fixedSocket,
      () => 'ovs-vswitchd',
    );
    return runner.run(['ovs-appctl', '-t', target, ...args], { env: { OVS_RUNDIR: ovsRunDir }, timeoutMs });
  };
}
