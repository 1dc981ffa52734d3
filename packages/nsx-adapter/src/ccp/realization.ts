import type { PolicyStatus } from '@antrea-ts/apis';
import type { KubeObject } from '../k8s/types.js';
import type { RealizationReport } from '../nsx/channels.js';
import type { PolicyOutcome } from './translate/feed.js';

/** Error codes in realization reports (simulator-defined; NSX-RPC's are not public). */
export const REALIZATION_ERROR_TRANSLATION = 1;
export const REALIZATION_ERROR_APPLY = 2;
export const REALIZATION_ERROR_FAILED = 3;
export const REALIZATION_ERROR_TIMEOUT = 4;

/**
 * One policy's realization state from its translation outcome and its ACNP:
 * - translation errors -> ERROR with one entry per problem;
 * - an apply failure (kube-apiserver refused the object) -> ERROR;
 * - ACNP status Realized for the current generation with every Node done -> SUCCESS;
 * - status Failed -> ERROR with the status conditions' messages;
 * - otherwise IN_PROGRESS, or ERROR once it has been so for longer than the realize timeout
 *   (the real adapter's RealizeTimeoutSeconds, 60 s by default).
 */
export function realizationReport(
  outcome: PolicyOutcome,
  acnp: KubeObject | undefined,
  applyError: string | undefined,
  inProgressSinceMs: number | undefined,
  nowMs: number,
  timeoutMs: number,
): RealizationReport {
  const base = { intent_path: outcome.path, intent_revision: outcome.revision };
  if (outcome.errors.length > 0) {
    return {
      ...base,
      state: 'ERROR',
      errors: outcome.errors.map((m) => ({ error_code: REALIZATION_ERROR_TRANSLATION, error_message: m })),
    };
  }
  if (applyError) {
    return {
      ...base,
      state: 'ERROR',
      errors: [{ error_code: REALIZATION_ERROR_APPLY, error_message: applyError }],
    };
  }
  const status = acnp?.status as PolicyStatus | undefined;
  const generation = acnp?.metadata?.generation ?? 0;
  const nodes =
    status && typeof status.currentNodesRealized === 'number'
      ? {
          current_nodes_realized: status.currentNodesRealized,
          desired_nodes_realized: status.desiredNodesRealized,
        }
      : {};
  if (
    status?.phase === 'Realized' &&
    status.observedGeneration >= generation &&
    status.currentNodesRealized === status.desiredNodesRealized
  ) {
    return { ...base, state: 'SUCCESS', ...nodes };
  }
  if (status?.phase === 'Failed') {
    const msgs = (status.conditions ?? [])
      .filter((c) => c.status !== 'True' || c.type === 'RealizationFailure')
      .map((c) => c.message ?? c.reason ?? c.type);
    return {
      ...base,
      state: 'ERROR',
      errors: (msgs.length > 0 ? msgs : ['policy realization failed']).map((m) => ({
        error_code: REALIZATION_ERROR_FAILED,
        error_message: m,
      })),
      ...nodes,
    };
  }
  if (inProgressSinceMs !== undefined && nowMs - inProgressSinceMs > timeoutMs) {
    return {
      ...base,
      state: 'ERROR',
      errors: [
        {
          error_code: REALIZATION_ERROR_TIMEOUT,
          error_message: `not realized within ${Math.round(timeoutMs / 1000)} s`,
        },
      ],
      ...nodes,
    };
  }
  return { ...base, state: 'IN_PROGRESS', ...nodes };
}

/**
 * Remembers what was last reported per policy so only changes are sent, and since when each policy
 * revision has been in progress (for the timeout). `reset()` after a reconnect resends everything.
 */
export class RealizationTracker {
  private readonly sent = new Map<string, string>();
  private readonly since = new Map<string, { key: string; at: number }>();

  reset(): void {
    this.sent.clear();
  }

  /** Reports that differ from the last sent ones; forgets policies that are gone. */
  changes(
    outcomes: readonly PolicyOutcome[],
    acnp: (name: string) => KubeObject | undefined,
    applyErrors: ReadonlyMap<string, string>,
    nowMs: number,
    timeoutMs: number,
  ): RealizationReport[] {
    const out: RealizationReport[] = [];
    const live = new Set<string>();
    for (const o of outcomes) {
      live.add(o.path);
      const obj = o.name ? acnp(o.name) : undefined;
      const key = `${o.revision}/${obj?.metadata?.generation ?? 0}`;
      const prev = this.since.get(o.path);
      if (!prev || prev.key !== key) this.since.set(o.path, { key, at: nowMs });
      const report = realizationReport(
        o,
        obj,
        o.name ? applyErrors.get(o.name) : undefined,
        this.since.get(o.path)?.at,
        nowMs,
        timeoutMs,
      );
      const text = JSON.stringify(report);
      if (this.sent.get(o.path) === text) continue;
      out.push(report);
    }
    for (const p of [...this.since.keys()]) if (!live.has(p)) this.since.delete(p);
    for (const p of [...this.sent.keys()]) if (!live.has(p)) this.sent.delete(p);
    return out;
  }

  /** Marks reports as delivered. */
  delivered(reports: readonly RealizationReport[]): void {
    for (const r of reports) this.sent.set(r.intent_path, JSON.stringify(r));
  }
}
