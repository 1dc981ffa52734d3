import { describe, expect, it } from 'vitest';
import { withEgressCondition } from './egress.js';

describe('withEgressCondition', () => {
  const now = new Date('2026-01-02T03:04:05.678Z');
  const allocated = {
    type: 'IPAllocated',
    status: 'True',
    reason: 'Allocated',
    message: 'EgressIP is successfully allocated',
  } as const;
  const assigned = {
    type: 'IPAssigned',
    status: 'True',
    reason: 'Assigned',
    message: 'ok',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  } as const;

  it('adds a missing condition stamped now in whole seconds, keeping the others', () => {
    expect(withEgressCondition([assigned], allocated, now)).toEqual([
      assigned,
      { ...allocated, lastTransitionTime: '2026-01-02T03:04:05Z' },
    ]);
  });

  it('returns undefined when the condition already says the same', () => {
    const have = [{ ...allocated, lastTransitionTime: '2025-12-31T00:00:00Z' }, assigned];
    expect(withEgressCondition(have, allocated, now)).toBeUndefined();
  });

  it('keeps lastTransitionTime while the status stays, and moves it when the status changes', () => {
    const have = [assigned];
    expect(withEgressCondition(have, { ...assigned, message: 'moved' }, now)).toEqual([
      { ...assigned, message: 'moved' },
    ]);
    expect(
      withEgressCondition(have, { type: 'IPAssigned', status: 'False', reason: 'AssignmentError' }, now),
    ).toEqual([
      {
        type: 'IPAssigned',
        status: 'False',
        reason: 'AssignmentError',
        lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    ]);
  });
});
