// Runs enforce-prober.mjs inside a Pod's netns and keeps its attempts per target, in seq order:
// an attempt is handed out only once every earlier one of its target is in, so a slow drop can
// never be overtaken by a quick allow that started after it.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Attempt } from './enforce-detect.js';
import { ROOT } from './lab-run.js';

/** The prober's source (it runs as is, with no build step). */
export const PROBER = join(ROOT, 'test/agent-policy/enforce-prober.mjs');

export interface ProbeStreamOptions {
  netns: string;
  /** host:port of each target (IPv6 in brackets). */
  targets: readonly string[];
  intervalMs: number;
  timeoutMs: number;
}

export class ProbeStream {
  readonly #child: ChildProcess;
  readonly #ordered: Attempt[][];
  readonly #pending: Array<Map<number, Attempt>>;
  readonly #firstStart: number[];
  #stderr = '';
  #exited: Promise<void>;

  constructor(options: ProbeStreamOptions) {
    this.#ordered = options.targets.map(() => []);
    this.#pending = options.targets.map(() => new Map());
    this.#firstStart = options.targets.map(() => Number.NaN);
    this.#child = spawn(
      'ip',
      [
        'netns',
        'exec',
        options.netns,
        process.execPath,
        PROBER,
        '--interval-ms',
        String(options.intervalMs),
        '--timeout-ms',
        String(options.timeoutMs),
        ...options.targets,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.#child.stderr!.on('data', (b: Buffer) => {
      this.#stderr = (this.#stderr + b.toString()).slice(-2000);
    });
    createInterface({ input: this.#child.stdout! }).on('line', (line) => this.#take(line));
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
  }

  #take(line: string): void {
    const a = JSON.parse(line) as Attempt & { t: number };
    const ordered = this.#ordered[a.t]!;
    const pending = this.#pending[a.t]!;
    pending.set(a.seq, { seq: a.seq, start: a.start, ms: a.ms, result: a.result });
    if (a.seq === 0) this.#firstStart[a.t] = a.start;
    let next = (ordered.at(-1)?.seq ?? -1) + 1;
    for (let x = pending.get(next); x; x = pending.get(next)) {
      ordered.push(x);
      pending.delete(next);
      next++;
    }
  }

  /** The attempts of target `t` so far, in seq order with no gaps. */
  attempts(t: number): readonly Attempt[] {
    return this.#ordered[t]!;
  }

  /**
   * The mean time between two attempts of target `t` so far: the resolution of every measurement
   * (the prober's timer slips behind --interval-ms when the machine is busy).
   */
  meanIntervalMs(t: number): number {
    const last = this.#ordered[t]!.at(-1);
    return last && last.seq > 0 ? (last.start - this.#firstStart[t]!) / last.seq : Number.NaN;
  }

  /** Drops attempts that started before `before` (a long run would otherwise keep them all). */
  forget(before: number): void {
    for (const list of this.#ordered) {
      // The last attempt stays: its seq tells which one comes next.
      const keep = list.findIndex((a) => a.start >= before);
      list.splice(0, keep < 0 ? Math.max(0, list.length - 1) : keep);
    }
  }

  /** Why the prober is not producing anything, for error messages. */
  get diagnostics(): string {
    return `prober exit=${this.#child.exitCode} stderr=${JSON.stringify(this.#stderr)}`;
  }

  /** Stops the prober (closing its stdin; SIGKILL if it lingers) and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 2_000);
    await this.#exited;
    clearTimeout(timer);
  }
}
