import { execFile } from 'node:child_process';
import { HarnessError } from './errors.js';

export interface RunOptions {
  /** Run inside this network namespace (through `ip netns exec`). */
  netns?: string | undefined;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** The argv that runs `argv` inside `netns`, or `argv` itself for the root namespace. */
export function inNetns(netns: string | undefined, argv: readonly string[]): string[] {
  return netns ? ['ip', 'netns', 'exec', netns, ...argv] : [...argv];
}

/** Runs a command to completion and returns its stdout; a non-zero exit rejects with stderr. */
export function run(argv: readonly string[], options: RunOptions = {}): Promise<string> {
  const full = inNetns(options.netns, argv);
  const [file, ...args] = full;
  return new Promise((resolve, reject) => {
    const child = execFile(
      file!,
      args,
      {
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new HarnessError(
              'HARNESS_COMMAND_FAILED',
              `${full.join(' ')} failed: ${stderr.trim() || error.message}`,
              { cause: error },
            ),
          );
          return;
        }
        resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Like `run`, but a failure is ignored: for best-effort cleanup of things that may be gone already. */
export async function tryRun(argv: readonly string[], options: RunOptions = {}): Promise<boolean> {
  try {
    await run(argv, options);
    return true;
  } catch {
    return false;
  }
}

/** Polls `probe` until it resolves truthy or `timeoutMs` passes. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new HarnessError('HARNESS_START_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}`, {
        cause: lastError,
      });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
