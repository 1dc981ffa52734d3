import { LabError } from './errors.js';

/**
 * Polls `probe` until it returns a truthy value. A LabError thrown by the probe (a component
 * exited) ends the wait at once; other errors count as "not yet" (connection refused while
 * starting). The timeout error names `what`, which should point at the component's log.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false | null>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const intervalMs = options.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      if (error instanceof LabError) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new LabError('LAB_START_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}${why}`, {
        cause: lastError,
      });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
