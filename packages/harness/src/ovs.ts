import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { run, tryRun, waitFor } from './exec.js';
import { ManagedProcess } from './managed-process.js';
import { createNetns, NET_PREFIX, uniqueTag } from './netns.js';
import { ovsRunDirLayout, VSWITCH_SCHEMA } from './ovs-commands.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

export interface StartOvsOptions {
  /**
   * Network namespace to run both daemons in (a lab Node). When absent, a private one is made and
   * removed on stop: userspace ovs-vswitchd instances sharing a namespace fight over tap names.
   */
  netns?: string;
  logger?: Logger;
}

/**
 * One Open vSwitch instance in userspace: ovsdb-server and `ovs-vswitchd --disable-system` with their
 * own database, run dir and logs, so several can run side by side (one per netns Node). Bridges must
 * use datapath_type=netdev because there is no kernel module.
 */
export interface OvsInstance {
  readonly netns: string;
  readonly runDir: string;
  /** Unix socket of ovsdb-server (JSON-RPC, RFC 7047). */
  readonly dbSocket: string;
  /** Environment that points the ovs-* tools at this instance. */
  readonly env: NodeJS.ProcessEnv;
  /** OpenFlow management socket that ovs-vswitchd opens for a bridge. */
  bridgeMgmtSocket(bridge: string): string;
  vsctl(args: readonly string[]): Promise<string>;
  ofctl(args: readonly string[]): Promise<string>;
  appctl(args: readonly string[]): Promise<string>;
  /** Stops and starts ovs-vswitchd only (the database stays): what an OVS upgrade or crash looks like. */
  restartVswitchd(options?: { crash?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export async function startOvs(options: StartOvsOptions = {}): Promise<OvsInstance> {
  const dir: TempDir = makeTempDir('ovs');
  const runDir = dir.path;
  const privateNetns = options.netns ? undefined : await createNetns(`${NET_PREFIX}-${uniqueTag()}-ovs`);
  const netns = options.netns ?? privateNetns!.name;
  const layout = ovsRunDirLayout(runDir);
  const env: NodeJS.ProcessEnv = { ...process.env, ...layout.vars };
  const { dbSocket, dbFile } = layout;
  const log = options.logger?.child({ component: 'harness-ovs', netns });
  let ovsdb: ManagedProcess | undefined;
  let vswitchd: ManagedProcess | undefined;

  const ctl = (tool: string, args: readonly string[]) => run([tool, ...args], { netns, env });

  const startVswitchd = async () => {
    const ctlSocket = layout.vswitchdCtlSocket;
    vswitchd = new ManagedProcess({
      name: 'ovs-vswitchd',
      netns,
      env,
      logFile: join(runDir, 'ovs-vswitchd.log'),
      argv: layout.vswitchdArgv,
    });
    const started = vswitchd;
    await waitFor('ovs-vswitchd control socket', async () => {
      started.assertRunning();
      if (!existsSync(ctlSocket)) return false;
      await ctl('ovs-appctl', ['-t', ctlSocket, 'version']);
      return true;
    });
  };

  try {
    await run(['ovsdb-tool', 'create', dbFile, VSWITCH_SCHEMA]);
    ovsdb = new ManagedProcess({
      name: 'ovsdb-server',
      netns,
      env,
      logFile: join(runDir, 'ovsdb-server.log'),
      argv: layout.ovsdbServerArgv,
    });
    const server = ovsdb;
    await waitFor('ovsdb-server socket', async () => {
      server.assertRunning();
      return existsSync(dbSocket);
    });
    await ctl('ovs-vsctl', [`--db=unix:${dbSocket}`, '--no-wait', 'init']);
    await startVswitchd();
    log?.info({ runDir }, 'Open vSwitch started');
  } catch (error) {
    await vswitchd?.kill();
    await ovsdb?.kill();
    dir.remove();
    await privateNetns?.delete();
    throw error;
  }

  let stopped = false;
  let restarts = 0;
  return {
    netns,
    runDir,
    dbSocket,
    env,
    bridgeMgmtSocket: (bridge) => join(runDir, `${bridge}.mgmt`),
    vsctl: (args) => ctl('ovs-vsctl', [`--db=unix:${dbSocket}`, '--timeout=30', ...args]),
    ofctl: (args) => ctl('ovs-ofctl', args),
    appctl: (args) => ctl('ovs-appctl', ['-t', layout.vswitchdCtlSocket, ...args]),
    async restartVswitchd({ crash = false } = {}) {
      if (crash) await vswitchd?.kill();
      else await vswitchd?.stop();
      await startVswitchd();
      // The daemon answers its control socket before it has rebuilt the bridges (and opened their
      // management sockets); a database change made without --no-wait returns only once it has.
      await ctl('ovs-vsctl', [
        `--db=unix:${dbSocket}`,
        '--timeout=30',
        'set',
        'Open_vSwitch',
        '.',
        `external_ids:harness-restarts=${++restarts}`,
      ]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // Netdev internal ports are persistent taps that can outlive ovs-vswitchd; note them while the
      // database still answers, ask the daemon to remove them, and delete what it did not.
      const internalPorts = await ctl('ovs-vsctl', [
        `--db=unix:${dbSocket}`,
        '--timeout=5',
        '--bare',
        '--columns=name',
        'find',
        'interface',
        'type=internal',
      ]).then(
        (out) => out.split(/\s+/).filter(Boolean),
        () => [] as string[],
      );
      await tryRun(['ovs-appctl', '-t', layout.vswitchdCtlSocket, 'exit', '--cleanup'], {
        netns,
        env,
        timeoutMs: 10_000,
      });
      await vswitchd?.stop();
      for (const port of internalPorts) await tryRun(['ip', 'link', 'delete', port], { netns });
      await ovsdb?.stop();
      dir.remove();
      await privateNetns?.delete();
      log?.info('Open vSwitch stopped');
    },
  };
}
