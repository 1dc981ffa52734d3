import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CniConflist } from '@antrea-ts/apis';
import { inNetns } from '@antrea-ts/harness';
import { LabError } from './errors.js';

/** What a container runtime knows about one sandbox when it calls the network plugins. */
export interface CniRuntime {
  containerId: string;
  /** Path of the Pod's network namespace (/var/run/netns/<name>). */
  netnsPath: string;
  ifName: string;
  /** CNI_ARGS pairs, e.g. K8S_POD_NAMESPACE, K8S_POD_NAME, K8S_POD_INFRA_CONTAINER_ID. */
  args: ReadonlyArray<readonly [string, string]>;
  /** Capability arguments (portMappings, bandwidth) offered to the plugins that declare them. */
  capabilityArgs?: Record<string, unknown>;
  /** Directories searched for plugin binaries (CNI_PATH). */
  binDirs: readonly string[];
  /** The "host" namespace the plugins run in: the Node's netns in the lab. */
  hostNetns?: string;
  /** Extra environment passed through to the plugins (the runtime's own environment in real life). */
  env?: Record<string, string>;
}

/**
 * Runs a conflist the way libcni does (containernetworking/cni libcni/api.go): ADD calls each
 * plugin in order with `name` and `cniVersion` from the list, the previous plugin's result as
 * `prevResult`, and `runtimeConfig` for the capabilities it declares; the last result is the
 * list's. DEL calls them in reverse order with the cached ADD result as `prevResult`.
 */
export async function cniAdd(list: CniConflist, rt: CniRuntime): Promise<unknown> {
  let prevResult: unknown;
  for (const plugin of list.plugins) {
    const out = await execPlugin('ADD', netconf(list, plugin, rt, prevResult), plugin.type, rt);
    prevResult = JSON.parse(out) as unknown;
  }
  return prevResult;
}

export async function cniDel(list: CniConflist, rt: CniRuntime, cachedResult: unknown): Promise<void> {
  for (const plugin of [...list.plugins].reverse()) {
    await execPlugin('DEL', netconf(list, plugin, rt, cachedResult), plugin.type, rt);
  }
}

function netconf(
  list: CniConflist,
  plugin: CniConflist['plugins'][number],
  rt: CniRuntime,
  prevResult: unknown,
): Record<string, unknown> {
  const { capabilities, ...rest } = plugin as Record<string, unknown> & {
    capabilities?: Record<string, boolean>;
  };
  const conf: Record<string, unknown> = { ...rest, name: list.name, cniVersion: list.cniVersion };
  const runtimeConfig: Record<string, unknown> = {};
  for (const [cap, enabled] of Object.entries(capabilities ?? {})) {
    if (enabled && rt.capabilityArgs?.[cap] !== undefined) runtimeConfig[cap] = rt.capabilityArgs[cap];
  }
  if (Object.keys(runtimeConfig).length > 0) conf['runtimeConfig'] = runtimeConfig;
  if (prevResult !== undefined) conf['prevResult'] = prevResult;
  return conf;
}

function findPlugin(type: string, binDirs: readonly string[]): string {
  for (const dir of binDirs) {
    const path = join(dir, type);
    if (existsSync(path)) return path;
  }
  throw new LabError('LAB_CNI_FAILED', `CNI plugin ${type} not found in ${binDirs.join(':')}`);
}

function execPlugin(
  command: 'ADD' | 'DEL',
  conf: Record<string, unknown>,
  type: string,
  rt: CniRuntime,
): Promise<string> {
  const path = findPlugin(type, rt.binDirs);
  const env: NodeJS.ProcessEnv = {
    // The plugins find `node` (antrea-cni's launcher) and iptables through PATH, as under kubelet.
    PATH: `${dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    ...rt.env,
    CNI_COMMAND: command,
    CNI_CONTAINERID: rt.containerId,
    CNI_NETNS: rt.netnsPath,
    CNI_IFNAME: rt.ifName,
    CNI_ARGS: rt.args.map(([k, v]) => `${k}=${v}`).join(';'),
    CNI_PATH: rt.binDirs.join(':'),
  };
  const [file, ...argv] = inNetns(rt.hostNetns, [path]);
  return new Promise((resolve, reject) => {
    const child = spawn(file!, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new LabError('LAB_CNI_FAILED', `${type} ${command}: ${err.message}`, { cause: err }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else {
        reject(
          new LabError(
            'LAB_CNI_FAILED',
            `CNI ${command} failed in plugin ${type} (exit ${code}): ${stdout.trim() || stderr.trim()}`,
          ),
        );
      }
    });
    child.stdin.end(JSON.stringify(conf));
  });
}
