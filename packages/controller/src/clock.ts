/** Time source, injected so that tests and benchmarks control it. */
export interface Clock {
  /** Wall-clock time, used for condition timestamps. */
  now(): Date;
  /** Monotonic milliseconds, used for durations. */
  monotonicMs(): number;
}

export const systemClock: Clock = {
  now: () => new Date(),
  monotonicMs: () => performance.now(),
};
