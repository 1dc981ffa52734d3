export interface BackoffOptions {
  /** Delay before the first retry. */
  initialMs: number;
  /** Ceiling: a server that is down for long is polled at this rate. */
  maxMs: number;
  factor?: number;
  /** 0..1: fraction of the delay randomised, so many agents do not reconnect in lockstep. */
  jitter?: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 5_000, factor: 2, jitter: 0.2 };

/** Delay before retry number `attempt` (0-based). `random` is injected to keep this pure. */
export function backoffDelay(options: BackoffOptions, attempt: number, random: () => number): number {
  const factor = options.factor ?? 2;
  const base = Math.min(options.maxMs, options.initialMs * factor ** Math.min(attempt, 64));
  const jitter = Math.min(Math.max(options.jitter ?? 0, 0), 1);
  return Math.round(base * (1 - jitter + jitter * random()));
}
