import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { inNetns } from '@antrea-ts/harness';
import type { ProcessRecord } from './state.js';

/**
 * Starts a process that outlives the caller: its own session (so a Ctrl-C of `lab up` does not
 * reach it), stdout and stderr appended to its log, and no handle keeping the caller alive.
 * `ip netns exec` execs the command in place, so the pid is the component's own.
 */
export function spawnDetached(options: {
  name: string;
  argv: readonly string[];
  netns?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  log: string;
  cmdlineMatch: string;
}): ProcessRecord {
  const [file, ...args] = inNetns(options.netns, options.argv);
  const fd = openSync(options.log, 'a');
  try {
    const child = spawn(file!, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, ...options.env },
    });
    child.on('error', () => undefined);
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${options.name}`);
    return {
      name: options.name,
      pid: child.pid,
      cmdlineMatch: options.cmdlineMatch,
      log: options.log,
      argv: [...options.argv],
      ...(options.env ? { env: options.env } : {}),
      ...(options.netns ? { netns: options.netns } : {}),
    };
  } finally {
    closeSync(fd);
  }
}

export function cmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

/**
 * The process exists and is not a zombie. Right after spawn this is the check to use: until the
 * child has exec'd, its command line is still the parent's.
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Starts a recorded process again with the same command, environment, netns and log. */
export function respawn(record: ProcessRecord): ProcessRecord {
  return spawnDetached({
    name: record.name,
    argv: record.argv,
    log: record.log,
    cmdlineMatch: record.cmdlineMatch,
    ...(record.netns ? { netns: record.netns } : {}),
    ...(record.env ? { env: record.env } : {}),
  });
}

/** Running and still ours: its command line matches (a recycled pid is never taken for ours). */
export function isAlive(record: Pick<ProcessRecord, 'pid' | 'cmdlineMatch'>): boolean {
  return isRunning(record.pid) && (cmdlineOf(record.pid)?.includes(record.cmdlineMatch) ?? false);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. A process already gone is fine. */
export async function stopProcess(
  record: Pick<ProcessRecord, 'pid' | 'cmdlineMatch'>,
  graceMs = 5_000,
): Promise<void> {
  if (!isAlive(record)) return;
  signal(record.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(record)) {
    if (Date.now() > deadline) {
      signal(record.pid, 'SIGKILL');
      const hard = Date.now() + 2_000;
      while (isAlive(record) && Date.now() < hard) await sleep(20);
      return;
    }
    await sleep(20);
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Pids of every process in the root namespace whose command line contains `needle`. */
export function findProcesses(needle: string): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirProc();
  } catch {
    return out;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (cmdlineOf(pid)?.includes(needle)) out.push(pid);
  }
  return out;
}

function readdirProc(): string[] {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
