// The nsx-adapter binary (dist/cmd/nsx-adapter/main.js) as a child process for cluster tests:
// started with a kubeconfig and the NSX simulator's URL, its JSON log kept in memory and in a file,
// its /healthz read over loopback, stopped with SIGTERM like a Pod would be.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterHealthReport } from '@antrea-ts/nsx-adapter';

export interface NsxAdapterProcessOptions {
  root: string;
  /** Extra flags after the ones every run needs (--nsx-url, --cluster-name, --kubeconfig, --health-port). */
  args: readonly string[];
  nsxUrl: string;
  clusterName: string;
  kubeconfig: string;
  /** Every run's output is appended here, for the reader of a failed test. */
  logFile: string;
}

export class NsxAdapterProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;
  /** Log lines of the current run (JSON objects; non-JSON lines as `{msg}`). */
  lines: Record<string, unknown>[] = [];
  private partial = '';

  constructor(private readonly opts: NsxAdapterProcessOptions) {}

  start(): void {
    this.lines = [];
    this.partial = '';
    const child = spawn(
      process.execPath,
      [
        join(this.opts.root, 'dist/cmd/nsx-adapter/main.js'),
        '--nsx-url',
        this.opts.nsxUrl,
        '--cluster-name',
        this.opts.clusterName,
        '--kubeconfig',
        this.opts.kubeconfig,
        '--health-port',
        '0',
        ...this.opts.args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const take = (d: Buffer) => {
      appendFileSync(this.opts.logFile, d);
      const text = this.partial + d.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      for (const l of parts.filter((x) => x.trim() !== '')) {
        try {
          this.lines.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          this.lines.push({ msg: l });
        }
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    this.child = child;
  }

  /** Log lines of this run whose msg is `msg`. */
  logged(msg: string): Record<string, unknown>[] {
    return this.lines.filter((l) => l['msg'] === msg);
  }

  /** The /healthz answer; undefined until the endpoint is up. */
  async health(): Promise<AdapterHealthReport | undefined> {
    const port = this.logged('health endpoint listening')[0]?.['port'];
    if (typeof port !== 'number') return undefined;
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return (await res.json()) as AdapterHealthReport;
  }

  /** SIGTERM and wait; returns the exit code (SIGKILL after 20 s). */
  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child || !this.exited) return null;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
