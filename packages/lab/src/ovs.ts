import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run, tryRun } from '@antrea-ts/harness';
import { LabError } from './errors.js';
import { spawnDetached } from './processes.js';
import type { ProcessRecord } from './state.js';
import { waitUntil } from './wait.js';

const VSWITCH_SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

/** Variables that point the ovs-* tools at one Node's OVS instance. */
function ovsVars(dir: string): Record<string, string> {
  return {
    OVS_RUNDIR: dir,
    OVS_DBDIR: dir,
    OVS_LOGDIR: dir,
    OVS_SYSCONFDIR: dir,
    OVS_PKGDATADIR: '/usr/share/openvswitch',
  };
}

export function ovsEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, ...ovsVars(dir) };
}

export function vsctl(dir: string, netns: string, args: readonly string[]): Promise<string> {
  return run(['ovs-vsctl', `--db=unix:${join(dir, 'db.sock')}`, '--timeout=30', ...args], {
    netns,
    env: ovsEnv(dir),
  });
}

/**
 * One userspace Open vSwitch for a Node: ovsdb-server and `ovs-vswitchd --disable-system` in the
 * Node's netns, with their own database, sockets and run dir. They run under the lab's process
 * records (not OVS's --detach) so that `lab down` stops them like every other component.
 */
export async function startOvs(options: {
  dir: string;
  netns: string;
  logPrefix: string;
  record: (p: ProcessRecord) => Promise<void>;
}): Promise<void> {
  const { dir, netns } = options;
  mkdirSync(dir, { recursive: true });
  const env = ovsEnv(dir);
  const vars = ovsVars(dir);
  const dbFile = join(dir, 'conf.db');
  const dbSocket = join(dir, 'db.sock');
  if (!existsSync(VSWITCH_SCHEMA)) {
    throw new LabError('LAB_MISSING_BINARY', 'Open vSwitch is not installed: run hack/install-deps.sh');
  }
  if (!existsSync(dbFile)) await run(['ovsdb-tool', 'create', dbFile, VSWITCH_SCHEMA]);
  const ovsdb = spawnDetached({
    name: `ovsdb-server@${netns}`,
    netns,
    env: vars,
    log: `${options.logPrefix}-ovsdb-server.log`,
    cmdlineMatch: dbFile,
    argv: [
      'ovsdb-server',
      dbFile,
      `--remote=punix:${dbSocket}`,
      '--remote=db:Open_vSwitch,Open_vSwitch,manager_options',
      `--unixctl=${join(dir, 'ovsdb-server.ctl')}`,
      `--pidfile=${join(dir, 'ovsdb-server.pid')}`,
    ],
  });
  await options.record(ovsdb);
  await waitUntil(`ovsdb-server socket (log: ${ovsdb.log})`, async () => existsSync(dbSocket), {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  await run(['ovs-vsctl', `--db=unix:${dbSocket}`, '--no-wait', 'init'], { netns, env });
  const ctlSocket = join(dir, 'ovs-vswitchd.ctl');
  const vswitchd = spawnDetached({
    name: `ovs-vswitchd@${netns}`,
    netns,
    env: vars,
    log: `${options.logPrefix}-ovs-vswitchd.log`,
    cmdlineMatch: ctlSocket,
    argv: [
      'ovs-vswitchd',
      `unix:${dbSocket}`,
      '--disable-system',
      `--unixctl=${ctlSocket}`,
      `--pidfile=${join(dir, 'ovs-vswitchd.pid')}`,
      '-vconsole:info',
    ],
  });
  await options.record(vswitchd);
  await waitUntil(
    `ovs-vswitchd control socket (log: ${vswitchd.log})`,
    async () => {
      if (!existsSync(ctlSocket)) return false;
      await run(['ovs-appctl', '-t', ctlSocket, 'version'], { netns, env });
      return true;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
}

/** OVS version string, for `lab status`. */
export async function ovsVersion(): Promise<string> {
  const out = await run(['ovs-vswitchd', '--version']).catch(() => '');
  return out.split('\n')[0]?.trim() ?? '';
}

/**
 * Asks ovs-vswitchd to remove its datapath ports (netdev internal ports are taps that can outlive
 * it) before its process is stopped.
 */
export async function cleanupOvs(dir: string, netns: string): Promise<void> {
  const ctlSocket = join(dir, 'ovs-vswitchd.ctl');
  if (existsSync(ctlSocket)) {
    await tryRun(['ovs-appctl', '-t', ctlSocket, 'exit', '--cleanup'], {
      netns,
      env: ovsEnv(dir),
      timeoutMs: 10_000,
    });
  }
}
