import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { registerCleanup } from './cleanup-registry.js';
import { HarnessError } from './errors.js';
import { inNetns } from './exec.js';

export interface ManagedProcessOptions {
  name: string;
  argv: readonly string[];
  netns?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr are appended here. */
  logFile: string;
}

/**
 * A long-lived child (etcd, kube-apiserver, ovsdb-server, ...) whose output goes to a log file.
 * It is registered for cleanup, so an interrupted test run does not leave it behind.
 */
export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private readonly unregister: () => void;

  constructor(options: ManagedProcessOptions) {
    this.name = options.name;
    this.logFile = options.logFile;
    const [file, ...args] = inNetns(options.netns, options.argv);
    const log = openSync(options.logFile, 'a');
    this.child = spawn(file!, args, {
      env: options.env ?? process.env,
      stdio: ['ignore', log, log],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
      });
      this.child.once('error', () => {
        this.exitCode = -1;
        resolve(-1);
      });
    });
    const pid = this.child.pid;
    this.unregister = registerCleanup(() => {
      if (pid !== undefined && this.exitCode === undefined) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Rejects if the process has exited: used while waiting for readiness to fail fast. */
  assertRunning(): void {
    if (!this.running) {
      throw new HarnessError(
        'HARNESS_PROCESS_EXITED',
        `${this.name} exited with code ${this.exitCode}; see ${this.logFile}`,
      );
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. Idempotent. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.running) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.unregister();
  }

  /** Kills without grace, as a crash would. */
  async kill(): Promise<void> {
    if (this.running) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    this.unregister();
  }
}
