import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../errors.js';
import type { CommandRunner, RunOptions } from './command-runner.js';

const DIR_PREFIX = 'antrea-ts-sh-';
const OWNED_DIR = new RegExp(`^${DIR_PREFIX}(\\d+)-`);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Scratch dirs of runners whose process is gone (killed agents). */
function removeOrphanedDirs(base: string): void {
  let entries: string[];
  try {
    entries = readdirSync(base);
  } catch {
    return;
  }
  for (const name of entries) {
    const owner = OWNED_DIR.exec(name)?.[1];
    if (owner && !isAlive(Number(owner))) rmSync(join(base, name), { recursive: true, force: true });
  }
}

const REAP = 'jobs >/dev/null\n';

/**
 * Where the scratch files go: a tmpfs when there is one (/dev/shm is, on Linux and in containers),
 * so that the few syscalls per command never wait for a disk.
 */
function defaultScratchBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** A scratch file's text, or '' when the command never created it. */
function readScratch(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function removeScratch(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created (no stdin) or already gone.
  }
}

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

interface Pending {
  argv: readonly string[];
  /** Whether the command has a stdin file to remove. */
  hasInput: boolean;
  resolve: (out: string) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Runs commands through one long-lived `sh` (entered into the Node's network namespace once).
 * Forking a large Node process blocks its event loop for milliseconds per child (the page tables
 * are copied), which dominates a burst of Pod ADDs; forking a tiny shell does not. Each command
 * runs as a background job of the shell, so commands still run in parallel; stdin, stdout and
 * stderr go through files in a private directory, completions come back on fd 3. The files are
 * small and on a tmpfs: synchronous reads, writes and unlinks cost microseconds, where promise-based
 * ones cost a thread-pool round trip each, which showed as a third of the agent's CPU in Pod bursts.
 */
export class ShellCommandRunner implements CommandRunner {
  private sh: ChildProcess | undefined;
  private readonly dir: string;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private buffered = '';

  constructor(private readonly options: { netns?: string; tmpDir?: string } = {}) {
    const base = options.tmpDir ?? defaultScratchBase();
    removeOrphanedDirs(base);
    // The owner's pid in the name lets the next agent remove what a killed one left behind.
    this.dir = mkdtempSync(join(base, `${DIR_PREFIX}${process.pid}-`));
  }

  run(argv: readonly string[], options: RunOptions = {}): Promise<string> {
    const sh = this.shell();
    const id = this.next++;
    const base = join(this.dir, String(id));
    const env = options.env
      ? `env -i PATH=${quote(process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin')} ${Object.entries(
          options.env,
        )
          .map(([k, v]) => `${k}=${quote(v)}`)
          .join(' ')} `
      : '';
    return new Promise<string>((resolve, reject) => {
      if (options.input !== undefined) {
        try {
          writeFileSync(`${base}.in`, options.input);
        } catch (err) {
          const why = `${argv.join(' ')}: writing its input: ${(err as Error).message}`;
          reject(new AgentError('AGENT_COMMAND_FAILED', why));
          return;
        }
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AgentError('AGENT_COMMAND_FAILED', `${argv.join(' ')}: timed out`));
      }, options.timeoutMs ?? 30_000);
      this.pending.set(id, { argv, hasInput: options.input !== undefined, resolve, reject, timer });
      const stdin = options.input === undefined ? '/dev/null' : `${base}.in`;
      // `jobs` makes the shell reap the jobs that have finished: it waits for foreground commands only,
      // and would otherwise keep one zombie per command for as long as it lives.
      sh.stdin?.write(
        `( ${env}${argv.map(quote).join(' ')} <${stdin} >${base}.out 2>${base}.err; echo "${id} $?" >&3 ) &\n${REAP}`,
      );
    });
  }

  stop(): void {
    const sh = this.sh;
    this.sh = undefined;
    sh?.stdin?.end();
    sh?.kill();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new AgentError('AGENT_STOPPED', 'command runner stopped'));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private shell(): ChildProcess {
    if (this.sh) return this.sh;
    const argv = this.options.netns
      ? ['nsenter', `--net=/var/run/netns/${this.options.netns}`, 'sh']
      : ['sh'];
    const sh = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'ignore', 'ignore', 'pipe'] });
    sh.unref();
    const done = sh.stdio[3] as NodeJS.ReadableStream & { unref?: () => void };
    done.setEncoding('utf8');
    done.on('data', (chunk: string) => this.onDone(chunk));
    sh.on('exit', () => {
      if (this.sh === sh) this.sh = undefined;
    });
    this.sh = sh;
    return sh;
  }

  private onDone(chunk: string): void {
    // The jobs that reported are about to exit: reap them (and any earlier ones) now, not at the next command.
    this.sh?.stdin?.write(REAP);
    this.buffered += chunk;
    let nl = this.buffered.indexOf('\n');
    while (nl >= 0) {
      const [idText, codeText] = this.buffered.slice(0, nl).split(' ');
      this.buffered = this.buffered.slice(nl + 1);
      nl = this.buffered.indexOf('\n');
      this.complete(Number(idText), Number(codeText));
    }
  }

  private complete(id: number, code: number): void {
    const p = this.pending.get(id);
    const base = join(this.dir, String(id));
    // Only what is used is read: stdout for a caller still waiting, stderr of a failure.
    const stdout = p ? readScratch(`${base}.out`) : '';
    const stderr = p && code !== 0 ? readScratch(`${base}.err`) : '';
    // The shell made .out and .err; .in exists only with input (a timed-out command's entry is gone:
    // try it). A failed unlinkSync throws, and an exception costs more than the unlink itself.
    removeScratch(`${base}.out`);
    removeScratch(`${base}.err`);
    if (p?.hasInput !== false) removeScratch(`${base}.in`);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(id);
    if (code === 0) {
      p.resolve(stdout);
      return;
    }
    const err = new AgentError(
      'AGENT_COMMAND_FAILED',
      `${p.argv.join(' ')}: ${stderr.trim() || `exit ${code}`}`,
    );
    Object.assign(err, { stdout, stderr, exitCode: code });
    p.reject(err);
  }
}
