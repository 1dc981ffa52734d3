import type { CommandRunner } from '../net/command-runner.js';

/**
 * `ovs-appctl ofproto/trace <bridge> <flow>` against the local ovs-vswitchd. ovs-appctl finds the
 * daemon's control socket through its pidfile in OVS_RUNDIR, read at each call, so a restarted
 * ovs-vswitchd is found again.
 * @param ovsRunDir the daemon's run directory; none uses OVS's default (/var/run/openvswitch).
 */
export function ofprotoTracer(
  runner: CommandRunner,
  bridge: string,
  ovsRunDir?: string,
): (flow: string) => Promise<string> {
  const env = ovsRunDir === undefined ? undefined : { OVS_RUNDIR: ovsRunDir };
  return (flow) =>
    runner.run(
      ['ovs-appctl', 'ofproto/trace', bridge, flow],
      env ? { env, timeoutMs: 10_000 } : { timeoutMs: 10_000 },
    );
}
