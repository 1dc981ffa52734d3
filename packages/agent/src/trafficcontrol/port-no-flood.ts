import { join } from 'node:path';
import type { CommandRunner } from '../net/command-runner.js';

/**
 * `ovs-ofctl mod-port <bridge> <port> no-flood` on the Node's ovs-vswitchd, as Antrea sets
 * TrafficControl ports: br-int floods ARP (NORMAL), and a mirror or redirect target is no place for
 * other Pods' broadcasts. The flag lives in ovs-vswitchd only, so a controller sets it on every port
 * it has not set it on yet in this run.
 */
export function portNoFlood(
  runner: CommandRunner,
  bridge: string,
  ovsRunDir = '/var/run/openvswitch',
): (port: string) => Promise<void> {
  const target = `unix:${join(ovsRunDir, `${bridge}.mgmt`)}`;
  return async (port) => void (await runner.run(['ovs-ofctl', 'mod-port', target, port, 'no-flood']));
}
