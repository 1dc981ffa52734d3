import { existsSync, mkdirSync } from 'node:fs';
import { ovsRunDirLayout, run, tryRun, VSWITCH_SCHEMA } from '@antrea-ts/harness';
import { LabError } from './errors.js';
import { spawnDetached } from './processes.js';
import type { ProcessRecord } from './state.js';
import { waitUntil } from './wait.js';

/** The environment of the ovs-* tools run against one Node's OVS instance. */
export function ovsEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, ...ovsRunDirLayout(dir).vars };
}

export function vsctl(dir: string, netns: string, args: readonly string[]): Promise<string> {
  return run(['ovs-vsctl', `--db=unix:${ovsRunDirLayout(dir).dbSocket}`, '--timeout=30', ...args], {
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
  const layout = ovsRunDirLayout(dir);
  const { vars, dbFile, dbSocket } = layout;
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
    argv: layout.ovsdbServerArgv,
  });
  await options.record(ovsdb);
  await waitUntil(`ovsdb-server socket (log: ${ovsdb.log})`, async () => existsSync(dbSocket), {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  await run(['ovs-vsctl', `--db=unix:${dbSocket}`, '--no-wait', 'init'], { netns, env });
  const ctlSocket = layout.vswitchdCtlSocket;
  const vswitchd = spawnDetached({
    name: `ovs-vswitchd@${netns}`,
    netns,
    env: vars,
    log: `${options.logPrefix}-ovs-vswitchd.log`,
    cmdlineMatch: ctlSocket,
    argv: layout.vswitchdArgv,
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
  const ctlSocket = ovsRunDirLayout(dir).vswitchdCtlSocket;
  if (existsSync(ctlSocket)) {
    await tryRun(['ovs-appctl', '-t', ctlSocket, 'exit', '--cleanup'], {
      netns,
      env: ovsEnv(dir),
      timeoutMs: 10_000,
    });
  }
}
