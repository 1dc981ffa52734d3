// When did a policy change reach the packets? Pure functions over the attempts of one prober
// target (enforce-prober.mjs), so the rule can be checked without a lab.

export type AttemptResult = 'allow' | 'drop' | 'reject' | 'error';

/** One fresh TCP connection attempt; `start` is when its SYN left (wall-clock ms). */
export interface Attempt {
  seq: number;
  start: number;
  ms: number;
  result: AttemptResult;
}

/** What the change should do to new connections. */
export type Want = 'allow' | 'deny';

export interface Transition {
  /** Start of the first attempt that shows the new behaviour for good (see detectTransition). */
  enforcedAt: number;
  /**
   * Attempts since the change that disagree with the rule's verdict: non-allowed attempts after an
   * allow took effect, or non-allowed ones while allow was still in force (a connect that took
   * longer than the prober's timeout on the loaded machine, or a datapath that flapped).
   */
  stray: number;
}

/**
 * Finds the transition to `want` among `attempts` (one target, in seq order, with no gaps) started
 * at or after `since`. Only an `allow` is proof by itself (a handshake happened); a missing answer
 * may be slowness, so:
 * - to allow: the first allowed attempt;
 * - to deny: the attempt right after the last allowed one;
 * and the new behaviour must have held for `confirmMs` of later attempts (for deny: with no allow
 * among them) before the transition counts. Undefined while that is not yet known.
 */
export function detectTransition(
  attempts: readonly Attempt[],
  want: Want,
  since: number,
  confirmMs: number,
): Transition | undefined {
  const after = attempts.filter((a) => a.start >= since);
  const last = after.at(-1);
  if (!last) return undefined;
  if (want === 'allow') {
    const first = after.findIndex((a) => a.result === 'allow');
    if (first < 0 || last.start - after[first]!.start < confirmMs) return undefined;
    const stray = after.slice(first).filter((a) => a.result !== 'allow').length;
    return { enforcedAt: after[first]!.start, stray };
  }
  const lastAllowed = after.findLastIndex((a) => a.result === 'allow');
  const first = after[lastAllowed + 1];
  if (!first || last.start - first.start < confirmMs) return undefined;
  const stray = after.slice(0, lastAllowed + 1).filter((a) => a.result !== 'allow').length;
  return { enforcedAt: first.start, stray };
}
