import { join } from 'node:path';

export const VSWITCH_SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

/** Where one userspace Open vSwitch instance keeps its files, and the commands that run it. */
export interface OvsRunDirLayout {
  /** Variables that point the ovs-* tools (and the daemons' defaults) at the run dir. */
  vars: Record<string, string>;
  dbFile: string;
  dbSocket: string;
  vswitchdCtlSocket: string;
  /** ovsdb-server serving `dbFile` on `dbSocket`. */
  ovsdbServerArgv: string[];
  /** ovs-vswitchd without the kernel module: every bridge must use datapath_type=netdev. */
  vswitchdArgv: string[];
}

/**
 * An OVS instance that keeps everything (database, sockets, pid files, logs) in `runDir`: shared
 * by the harness's `startOvs` and the lab's Nodes, which supervise the daemons differently
 * (in-process vs detached) but must run them the same way.
 */
export function ovsRunDirLayout(runDir: string): OvsRunDirLayout {
  const dbFile = join(runDir, 'conf.db');
  const dbSocket = join(runDir, 'db.sock');
  const vswitchdCtlSocket = join(runDir, 'ovs-vswitchd.ctl');
  return {
    vars: {
      OVS_RUNDIR: runDir,
      OVS_DBDIR: runDir,
      OVS_LOGDIR: runDir,
      OVS_SYSCONFDIR: runDir,
      OVS_PKGDATADIR: '/usr/share/openvswitch',
    },
    dbFile,
    dbSocket,
    vswitchdCtlSocket,
    ovsdbServerArgv: [
      'ovsdb-server',
      dbFile,
      `--remote=punix:${dbSocket}`,
      '--remote=db:Open_vSwitch,Open_vSwitch,manager_options',
      `--unixctl=${join(runDir, 'ovsdb-server.ctl')}`,
      `--pidfile=${join(runDir, 'ovsdb-server.pid')}`,
    ],
    vswitchdArgv: [
      'ovs-vswitchd',
      `unix:${dbSocket}`,
      '--disable-system',
      `--unixctl=${vswitchdCtlSocket}`,
      `--pidfile=${join(runDir, 'ovs-vswitchd.pid')}`,
      '-vconsole:info',
    ],
  };
}

/**
 * ovs-vsctl arguments that add a userspace bridge (or leave an existing one) and set `settings`
 * (`protocols=...`, `fail_mode=...`) on it; more commands can follow after a `--`.
 */
export function netdevBridgeArgs(name: string, settings: readonly string[] = []): string[] {
  return ['--may-exist', 'add-br', name, '--', 'set', 'bridge', name, 'datapath_type=netdev', ...settings];
}
