// A PacketCapture's status from the capturing agent's state, with Antrea's conditions and reasons:
//   Pending:  Started False (Pending, or NotStarted with why it cannot start)
//   Started:  Started True (Started), Complete False (Progressing)
//   Complete: Started True, Complete True (Succeed, Timeout or Failed with the error), and, when a
//             file server is set and something was captured, FileUploaded True (Succeed) or False (Failed)
// Pure: no clock of its own, no I/O.
import type { CrdCondition, PacketCaptureConditionType, PacketCaptureStatus } from '@antrea-ts/apis';

export type CapturePhase = 'Pending' | 'Started' | 'Complete';

export interface CaptureState {
  readonly phase: CapturePhase;
  readonly numberCaptured: number;
  /** Where the file is (set once complete with at least one packet). */
  readonly filePath?: string | undefined;
  /** Pending: why the capture cannot start now. */
  readonly notStarted?: string | undefined;
  /** Complete: how capturing ended short of N packets (none: all N captured). */
  readonly captureError?: { readonly reason: 'Timeout' | 'Failed'; readonly message: string } | undefined;
  /** Complete: why the upload failed (none: uploaded, or nothing to upload). */
  readonly uploadError?: string | undefined;
}

type Condition = CrdCondition<PacketCaptureConditionType>;

export function captureStatus(state: CaptureState, hasFileServer: boolean, now: Date): PacketCaptureStatus {
  const at = now.toISOString();
  const cond = (
    type: PacketCaptureConditionType,
    status: boolean,
    reason: string,
    message = '',
  ): Condition => ({
    type,
    status: status ? 'True' : 'False',
    lastTransitionTime: at,
    reason,
    message,
  });
  const conditions: Condition[] = [];
  if (state.phase === 'Pending') {
    conditions.push(
      state.notStarted === undefined
        ? cond('PacketCaptureStarted', false, 'Pending')
        : cond('PacketCaptureStarted', false, 'NotStarted', state.notStarted),
    );
  } else if (state.phase === 'Started') {
    conditions.push(
      cond('PacketCaptureStarted', true, 'Started'),
      cond('PacketCaptureComplete', false, 'Progressing'),
    );
  } else {
    const err = state.captureError;
    conditions.push(
      cond('PacketCaptureStarted', true, 'Started'),
      cond('PacketCaptureComplete', true, err?.reason ?? 'Succeed', err?.message ?? ''),
    );
    if (hasFileServer && state.numberCaptured > 0) {
      conditions.push(
        state.uploadError === undefined
          ? cond('PacketCaptureFileUploaded', true, 'Succeed')
          : cond('PacketCaptureFileUploaded', false, 'Failed', state.uploadError),
      );
    }
  }
  return { numberCaptured: state.numberCaptured, filePath: state.filePath ?? '', conditions };
}

const sameCondition = (a: Condition, b: Condition) =>
  a.type === b.type &&
  a.status === b.status &&
  a.reason === b.reason &&
  (a.message ?? '') === (b.message ?? '');

/**
 * The conditions to write: each wanted one, keeping the stored one (and so its lastTransitionTime)
 * when nothing but the time differs; stored types not wanted now stay as they are.
 */
export function mergeConditions(stored: readonly Condition[], wanted: readonly Condition[]): Condition[] {
  const byType = new Map(wanted.map((c) => [c.type, c]));
  const out = stored.map((old) => {
    const next = byType.get(old.type);
    if (!next) return old;
    byType.delete(old.type);
    return sameCondition(old, next) ? old : next;
  });
  return [...out, ...byType.values()];
}

/** Whether writing `wanted` over `stored` would change anything but transition times. */
export function statusChanged(stored: PacketCaptureStatus | undefined, wanted: PacketCaptureStatus): boolean {
  if ((stored?.numberCaptured ?? 0) !== wanted.numberCaptured) return true;
  if ((stored?.filePath ?? '') !== wanted.filePath) return true;
  const a = stored?.conditions ?? [];
  const b = wanted.conditions ?? [];
  return a.length !== b.length || b.some((c) => !a.some((o) => sameCondition(o, c)));
}
