import { describe, expect, it } from 'vitest';
import { type CaptureState, captureStatus, mergeConditions, statusChanged } from './capture-status.js';

const T1 = new Date('2026-01-01T00:00:00Z');
const T2 = new Date('2026-01-01T00:00:05Z');
const brief = (s: ReturnType<typeof captureStatus>) =>
  (s.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}${c.message ? `: ${c.message}` : ''}`);

describe('captureStatus: Antrea’s conditions per phase', () => {
  it('Pending, waiting or refused', () => {
    expect(brief(captureStatus({ phase: 'Pending', numberCaptured: 0 }, false, T1))).toEqual([
      'PacketCaptureStarted=False/Pending',
    ]);
    const refused: CaptureState = { phase: 'Pending', numberCaptured: 0, notStarted: 'invalid protocol' };
    expect(brief(captureStatus(refused, true, T1))).toEqual([
      'PacketCaptureStarted=False/NotStarted: invalid protocol',
    ]);
  });

  it('Started: progressing', () => {
    const s = captureStatus({ phase: 'Started', numberCaptured: 2 }, true, T1);
    expect(brief(s)).toEqual([
      'PacketCaptureStarted=True/Started',
      'PacketCaptureComplete=False/Progressing',
    ]);
    expect(s.numberCaptured).toBe(2);
    expect(s.conditions?.[0]?.lastTransitionTime).toBe(T1.toISOString());
  });

  it('Complete: succeeded and uploaded, timed out with nothing to upload, upload failed, no file server', () => {
    const done: CaptureState = { phase: 'Complete', numberCaptured: 5, filePath: 'sftp://h:22/d/pc.pcapng' };
    const ok = captureStatus(done, true, T1);
    expect(brief(ok)).toEqual([
      'PacketCaptureStarted=True/Started',
      'PacketCaptureComplete=True/Succeed',
      'PacketCaptureFileUploaded=True/Succeed',
    ]);
    expect(ok.filePath).toBe('sftp://h:22/d/pc.pcapng');
    const timedOut: CaptureState = {
      phase: 'Complete',
      numberCaptured: 0,
      captureError: { reason: 'Timeout', message: 'timed out after 5 s: 0 of 5 packets captured' },
    };
    expect(brief(captureStatus(timedOut, true, T1))).toEqual([
      'PacketCaptureStarted=True/Started',
      'PacketCaptureComplete=True/Timeout: timed out after 5 s: 0 of 5 packets captured',
    ]);
    expect(brief(captureStatus({ ...done, uploadError: 'authentication failed' }, true, T1))).toContain(
      'PacketCaptureFileUploaded=False/Failed: authentication failed',
    );
    expect(brief(captureStatus(done, false, T1))).toHaveLength(2);
  });
});

describe('mergeConditions and statusChanged', () => {
  it('keeps a stored condition’s transition time when only the time differs, replaces it otherwise', () => {
    const started = captureStatus({ phase: 'Started', numberCaptured: 0 }, false, T1);
    const again = captureStatus({ phase: 'Started', numberCaptured: 3 }, false, T2);
    const merged = mergeConditions(started.conditions ?? [], again.conditions ?? []);
    expect(merged.map((c) => c.lastTransitionTime)).toEqual([T1.toISOString(), T1.toISOString()]);
    const done = captureStatus({ phase: 'Complete', numberCaptured: 3 }, false, T2);
    const merged2 = mergeConditions(started.conditions ?? [], done.conditions ?? []);
    expect(merged2.map((c) => `${c.type}/${c.reason}/${c.lastTransitionTime}`)).toEqual([
      `PacketCaptureStarted/Started/${T1.toISOString()}`,
      `PacketCaptureComplete/Succeed/${T2.toISOString()}`,
    ]);
    expect(statusChanged(started, again)).toBe(true); // the count moved
    expect(statusChanged(again, captureStatus({ phase: 'Started', numberCaptured: 3 }, false, T1))).toBe(
      false,
    );
    expect(statusChanged(undefined, started)).toBe(true);
  });
});
