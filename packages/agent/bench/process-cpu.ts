// CPU time used by this process tree, by kind of process, from /proc. Wall-clock latency on a shared
// 2-core machine mostly measures the neighbours; CPU time per Pod ADD measures our own work.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux.

export interface CpuSplit {
  /** This process: the agent. */
  agent: number;
  /** The benchmark's spawner (playing the container runtime, and the gRPC client) and the plugin processes it started. */
  plugins: number;
  /** ovs-vswitchd and ovsdb-server. */
  ovs: number;
  /** Everything else below us: the command runners' shells and what they ran (ip, nsenter, host-local, ...). */
  commands: number;
}

/** Processes whose work is not a Pod ADD's (kube-apiserver and etcd serve the Node informers). */
const UNRELATED = new Set(['kube-apiserver', 'etcd', 'kube-controller']);

interface Stat {
  pid: number;
  ppid: number;
  comm: string;
  self: number;
  children: number;
}

function readStat(pid: string): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm is parenthesised and may contain spaces: split after its closing parenthesis.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const f = text.slice(close + 2).split(' ');
  // After comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  return {
    pid: Number(pid),
    ppid: Number(f[1]),
    comm,
    self: (Number(f[11]) + Number(f[12])) * TICK_MS,
    children: (Number(f[13]) + Number(f[14])) * TICK_MS,
  };
}

/**
 * CPU milliseconds used so far by this process and its descendants (zombies included), by kind;
 * the subtrees of `pluginRoots` count as plugins.
 */
export function treeCpu(pluginRoots: readonly number[] = []): CpuSplit {
  const stats = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(readStat)
    .filter((s): s is Stat => s !== undefined);
  const byParent = new Map<number, Stat[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const split: CpuSplit = { agent: 0, plugins: 0, ovs: 0, commands: 0 };
  const visit = (s: Stat, kind: keyof CpuSplit | undefined): void => {
    if (UNRELATED.has(s.comm)) return;
    const k =
      kind ?? (pluginRoots.includes(s.pid) ? 'plugins' : s.comm.startsWith('ovs') ? 'ovs' : 'commands');
    split[k] += s.self + s.children;
    for (const c of byParent.get(s.pid) ?? []) visit(c, k === 'commands' ? undefined : k);
  };
  const me = stats.find((s) => s.pid === process.pid)!;
  // Reaped children of ours are short-lived helpers (ip netns, ovs-vsctl) of the benchmark itself.
  split.agent = me.self;
  for (const c of byParent.get(process.pid) ?? []) visit(c, undefined);
  return split;
}

export function cpuSince(before: CpuSplit, pluginRoots: readonly number[] = []): CpuSplit {
  const now = treeCpu(pluginRoots);
  return {
    agent: now.agent - before.agent,
    plugins: now.plugins - before.plugins,
    ovs: now.ovs - before.ovs,
    commands: now.commands - before.commands,
  };
}
