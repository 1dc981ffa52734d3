import type { CommandRunner } from '../net/command-runner.js';
import { vswitchdAppctl } from './vswitchd-appctl.js';

/**
 * `ovs-appctl ofproto/trace <bridge> <flow>` against the local ovs-vswitchd (see vswitchdAppctl for
 * how its control socket is found).
 * @param ovsRunDir the daemon's run directory; none uses OVS's default (/var/run/openvswitch).
 */
export function ofprotoTracer(
  runner: CommandRunner,
  bridge: string,
  ovsRunDir = '/var/run/openvswitch',
): (flow: string) => Promise<string> {
  const appctl = vswitchdAppctl(runner, ovsRunDir);
  return (flow) => appctl(['ofproto/trace', bridge, flow]);
}
