// The rules bench:enforce uses to date a policy change on packets, on made-up attempt series
// (no lab): what counts as the transition, what is noise, and when it is not yet known.

import { percentile } from '@antrea-ts/harness';
import { describe, expect, it } from 'vitest';
import { changePhases, parseRealizations } from './enforce-breakdown.js';
import { type Attempt, type AttemptResult, detectTransition } from './enforce-detect.js';

/** Attempts every 10 ms from t=1000, with the given results. */
function series(results: string): Attempt[] {
  const code: Record<string, AttemptResult> = { a: 'allow', d: 'drop', r: 'reject', e: 'error' };
  return [...results].map((c, seq) => ({ seq, start: 1000 + seq * 10, ms: 1, result: code[c]! }));
}

describe('detectTransition', () => {
  it('to allow: the first allowed attempt after the change, once it held for the confirm window', () => {
    const s = series('ddddddaaaaaa');
    expect(detectTransition(s, 'allow', 1000, 50)).toEqual({ enforcedAt: 1060, stray: 0 });
    // Only 50 ms of allowed attempts: not yet confirmed with a 60 ms window.
    expect(detectTransition(s, 'allow', 1000, 60)).toBeUndefined();
    // Attempts before the change do not count.
    expect(detectTransition(series('aadddaaaaaaa'), 'allow', 1020, 50)?.enforcedAt).toBe(1050);
  });

  it('to allow: a slow attempt after the transition is stray, not a later transition', () => {
    expect(detectTransition(series('dddaadaaaaaa'), 'allow', 1000, 50)).toEqual({
      enforcedAt: 1030,
      stray: 1,
    });
  });

  it('to deny: the attempt after the last allowed one; earlier drops were slowness', () => {
    // A timeout at 1020 while allow was still in force, the last allow at 1050.
    const s = series('aadaaaddddddddd');
    expect(detectTransition(s, 'deny', 1000, 50)).toEqual({ enforcedAt: 1060, stray: 1 });
    expect(detectTransition(series('aaaarrrrrrrr'), 'deny', 1000, 50)?.enforcedAt).toBe(1040);
  });

  it('to deny: undefined while an allow may still follow, or when nothing changed', () => {
    expect(detectTransition(series('aaaadddd'), 'deny', 1000, 50)).toBeUndefined();
    expect(detectTransition(series('aaaaaaaaaaaa'), 'deny', 1000, 50)).toBeUndefined();
    expect(detectTransition(series('dddddddddddd'), 'allow', 1000, 50)).toBeUndefined();
    expect(detectTransition([], 'allow', 0, 0)).toBeUndefined();
  });
});

describe('percentile', () => {
  it('nearest rank', () => {
    const v = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(v, 50)).toBe(50);
    expect(percentile(v, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('agent log phases', () => {
  const log = [
    '{"level":30,"time":1000,"ms":5,"msg":"policies realized"}',
    '{"level":30,"time":1100,"msg":"something else"}',
    '{"level":30,"time":1150,"ms":20,"msg":"policies realized"}',
    '{"level":30,"time":1190,"ms":10,"msg":"policies realized"}',
    '{"level":30,"time":1400,"ms":3,"msg":"policies realized"}',
    '{"level":30,"time":14',
  ].join('\n');

  it('parses realizations and splits a change into to-agent, agent and to-packets', () => {
    const r = parseRealizations(log);
    expect(r).toEqual([
      { end: 1000, ms: 5 },
      { end: 1150, ms: 20 },
      { end: 1190, ms: 10 },
      { end: 1400, ms: 3 },
    ]);
    // Write from 1100 to 1120, new behaviour seen at 1200: the realizations of 1130-1150 and 1180-1190.
    expect(changePhases(r, 1100, 1120, 1200)).toEqual({
      toAgent: 30,
      afterWrite: 10,
      agent: 60,
      toPackets: 10,
      realizations: 2,
    });
    expect(changePhases(r, 1200, 1210, 1300)).toBeUndefined();
  });
});
