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

export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /**
   * Whether an error thrown by the probe ends the wait at once (a component exited) rather than
   * counting as "not yet" (connection refused while something starts). None does by default.
   */
  isFatal?: (error: unknown) => boolean;
  /** Builds the error thrown on timeout; by default a HarnessError HARNESS_START_TIMEOUT. */
  timeoutError?: (message: string, lastError: unknown) => Error;
}

/**
 * Polls `probe` until it resolves truthy. The timeout error says `timed out after <ms> ms waiting
 * for <what>` and carries the probe's last error as its cause.
 */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined | false | null>,
  options: PollOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      if (options.isFatal?.(error)) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const message = `timed out after ${timeoutMs} ms waiting for ${what}`;
      throw options.timeoutError
        ? options.timeoutError(message, lastError)
        : new HarnessError('HARNESS_START_TIMEOUT', message, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls `probe` until it resolves truthy or `timeoutMs` passes (see `poll`). */
export function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  return poll(what, probe, { timeoutMs, intervalMs });
}
