// Reads eventually-consistent state for an assertion. A lab test often waits for one component's
// report (an Egress status, an ACNP's phase) and then checks state another component owns (an
// agent's addresses, the controller's pool usage): the second lags the first by a sync, so reading
// it once races. settle() rereads until it holds the wanted value and returns the last value read
// either way, so the caller's expect() stays the strict check and prints what was actually there.
import { isDeepStrictEqual } from 'node:util';

export interface SettleOptions {
  /** How long to reread before giving up (default 60 s: lab syncs under full-suite load). */
  timeoutMs?: number;
  /** Pause between reads (default 500 ms). */
  intervalMs?: number;
}

/**
 * Rereads `read()` until its value deep-equals `want` (or satisfies it, when `want` is a
 * predicate) or the timeout passes; returns the last value. A read that throws ends it at once.
 */
export async function settle<T>(
  read: () => Promise<T>,
  want: T | ((value: T) => boolean),
  options: SettleOptions = {},
): Promise<T> {
  const matches = (v: T) =>
    typeof want === 'function' ? (want as (value: T) => boolean)(v) : isDeepStrictEqual(v, want);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const value = await read();
    if (matches(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
  }
}
