import { poll } from '@antrea-ts/harness';
import { LabError } from './errors.js';

/**
 * Polls `probe` until it returns a truthy value, with the lab's error policy: a LabError thrown by
 * the probe (a component exited) ends the wait at once; other errors count as "not yet" (connection
 * refused while starting). The timeout error names `what`, which should point at the component's
 * log, and the probe's last error.
 */
export function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false | null>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  return poll(what, probe, {
    timeoutMs: options.timeoutMs ?? 60_000,
    intervalMs: options.intervalMs ?? 200,
    isFatal: (error) => error instanceof LabError,
    timeoutError: (message, lastError) => {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      return new LabError('LAB_START_TIMEOUT', `${message}${why}`, { cause: lastError });
    },
  });
}
