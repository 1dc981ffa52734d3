// What an agent support bundle holds (Antrea pkg/support AgentDumper, in our own layout):
//   logs/agent.log                the agent's recent log (in-memory ring), --since applied
//   logs/<dir>/<file>             files of the configured log dirs (NetworkPolicy audit log, ...)
//   ovs/flows.txt                 br-int's flows with counters, as the switch reports them
//   ovs/ovsdb-dump.json           every row of the Open_vSwitch database
//   ovs/ovs-vsctl-show.txt        bridges, ports and interfaces
//   host-network/*.txt            addresses, links, routes, rules, neighbours, iptables-save
//   agent/*.json                  agentinfo, interface store, configuration, process report
//   networkpolicy/*.json          policies and groups received, rules realized with their conj ids
// Every file goes through the Redactor when packed. A collector that fails leaves an
// `<file>.error` with its message instead of failing the bundle: a partial bundle still helps.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  type BundleCollector,
  type BundleFile,
  bundleJson as json,
  type LogRing,
  processReport,
  redactingCollector,
  sinceCutoff,
} from '@antrea-ts/apis';
import { formatFlow } from '@antrea-ts/openflow';
import type { OvsdbClient } from '@antrea-ts/ovsdb';

import type { PodInterface } from '../cniserver/interface-store.js';
import type { CommandRunner } from '../net/command-runner.js';
import type { NetworkPolicyController } from '../networkpolicy/network-policy-controller.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import { dumpOvsdb, formatOvsShow, rowsJson } from './ovs-show.js';

export interface AgentBundleSource {
  /** The agent's own log lines; none leaves logs/agent.log out. */
  readonly logs?: LogRing;
  /** Directories whose regular files are bundled under logs/<dir name>/. */
  readonly logDirs: readonly string[];
  readonly runner: CommandRunner;
  /** Raw OVSDB client for the database dump; none leaves the OVSDB files out. */
  readonly ovsdb?: OvsdbClient;
  readonly sw: FlowSwitch;
  pods(): PodInterface[];
  policy(): NetworkPolicyController | undefined;
  agentInfo(): object;
  /** The effective configuration. */
  config(): object;
  /** The configuration file as written, if the agent was started with one. */
  readonly configText?: string;
  /** Values known to be secret (the agent's token, key material), removed wherever they appear. */
  secrets(): Promise<string[]>;
  readonly now: () => Date;
}

/** Host commands and the file each one's output goes to. */
const HOST_COMMANDS: readonly (readonly [string, readonly string[]])[] = [
  ['host-network/addresses.txt', ['ip', '-d', 'address', 'show']],
  ['host-network/links.txt', ['ip', '-d', '-s', 'link', 'show']],
  ['host-network/routes.txt', ['ip', 'route', 'show', 'table', 'all']],
  ['host-network/ip-rules.txt', ['ip', 'rule', 'show']],
  ['host-network/neighbours.txt', ['ip', 'neigh', 'show']],
  ['host-network/iptables-save.txt', ['iptables-save', '-c']],
  ['host-network/ip6tables-save.txt', ['ip6tables-save', '-c']],
];

/** Largest tail of one log file that goes into a bundle. */
const MAX_LOG_FILE_BYTES = 16 * 1024 * 1024;

async function guarded(name: string, fn: () => Promise<string> | string): Promise<BundleFile> {
  try {
    return { name, content: await fn() };
  } catch (err) {
    return { name: `${name}.error`, content: `${err instanceof Error ? err.message : String(err)}\n` };
  }
}

async function logDirFiles(dirs: readonly string[], sinceMs: number | undefined): Promise<BundleFile[]> {
  const out: BundleFile[] = [];
  for (const dir of dirs) {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isFile()) continue;
      const path = join(dir, e.name);
      const st = await stat(path);
      if (sinceMs !== undefined && st.mtimeMs < sinceMs) continue;
      const data = await readFile(path);
      const tail = data.length > MAX_LOG_FILE_BYTES ? data.subarray(data.length - MAX_LOG_FILE_BYTES) : data;
      out.push({ name: `logs/${basename(dir)}/${e.name}`, content: tail.toString('utf8') });
    }
  }
  return out;
}

function policyFiles(policy: NetworkPolicyController | undefined): BundleFile[] {
  if (!policy) return [{ name: 'networkpolicy/README', content: 'no controller connection: no policies\n' }];
  const cache = policy.cache;
  const realized = policy.realizedRules().map((r) => ({
    rule: r.rule.id,
    policy: r.rule.policy.metadata.name,
    sourceRef: r.rule.policy.sourceRef,
    action: r.rule.action,
    conjIds: r.conjIds,
    appliedTo: r.rule.appliedTo.map((a) => `${a.pod.namespace}/${a.pod.name}`),
  }));
  return [
    {
      name: 'networkpolicy/networkpolicies.json',
      content: json(
        cache
          .policyNames()
          .sort()
          .map((n) => cache.policy(n)),
      ),
    },
    { name: 'networkpolicy/appliedtogroups.json', content: json(cache.groupList('appliedtogroups')) },
    { name: 'networkpolicy/addressgroups.json', content: json(cache.groupList('addressgroups')) },
    { name: 'networkpolicy/realized-rules.json', content: json(realized) },
  ];
}

/** Every file of an agent bundle, unredacted (packAgentBundle redacts). */
export async function collectAgentFiles(
  src: AgentBundleSource,
  since: string | undefined,
): Promise<BundleFile[]> {
  const sinceMs = sinceCutoff(since, src.now());
  const files: BundleFile[] = [];
  if (src.logs) files.push({ name: 'logs/agent.log', content: src.logs.text(sinceMs) });
  files.push(...(await logDirFiles(src.logDirs, sinceMs)));
  files.push(
    await guarded('ovs/flows.txt', async () =>
      (await src.sw.dumpFlows({})).map((f) => `${formatFlow(f, { stats: true })}\n`).join(''),
    ),
  );
  const ovsdb = src.ovsdb;
  if (ovsdb) {
    const rows = await dumpOvsdb(ovsdb).catch((err: unknown) => err as Error);
    if (rows instanceof Error)
      files.push({ name: 'ovs/ovsdb-dump.json.error', content: `${rows.message}\n` });
    else {
      files.push({ name: 'ovs/ovsdb-dump.json', content: `${JSON.stringify(rowsJson(rows), null, 2)}\n` });
      files.push({ name: 'ovs/ovs-vsctl-show.txt', content: formatOvsShow(rows) });
    }
  }
  for (const [name, argv] of HOST_COMMANDS) files.push(await guarded(name, () => src.runner.run(argv)));
  files.push(await guarded('agent/agentinfo.json', () => json(src.agentInfo())));
  files.push({ name: 'agent/podinterfaces.json', content: json(src.pods()) });
  files.push({ name: 'agent/config.json', content: json(src.config()) });
  if (src.configText !== undefined) files.push({ name: 'agent/antrea-agent.conf', content: src.configText });
  files.push({ name: 'agent/process-report.json', content: processReport() });
  files.push(...policyFiles(src.policy()));
  return files;
}

/** The agent's BundleCollector: collect, redact with the agent's known secrets, pack. */
export function agentBundleCollector(src: AgentBundleSource): BundleCollector {
  return redactingCollector((since) => collectAgentFiles(src, since), src.secrets, src.now);
}
