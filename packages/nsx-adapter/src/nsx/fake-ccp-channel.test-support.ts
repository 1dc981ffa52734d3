import { NsxUnreachableError } from '../errors.js';
import type { CcpChannel, RealizationReport } from './channels.js';
import type { PolicyFeed } from './types.js';

/** A CcpChannel whose feed tests set; long polls wait for `setFeed` or the timeout. */
export class FakeCcpChannel implements CcpChannel {
  private feed: PolicyFeed;
  reachable = true;
  /** false: behave like the Policy API source (no generations, the adapter polls). */
  generations = true;
  readonly reports: RealizationReport[][] = [];
  calls = 0;
  private waiters: (() => void)[] = [];

  constructor(feed: PolicyFeed) {
    this.feed = { ...feed, policy_generation: feed.policy_generation ?? 1 };
  }

  setFeed(feed: Omit<PolicyFeed, 'policy_generation'>): void {
    this.feed = { ...feed, policy_generation: (this.feed.policy_generation ?? 0) + 1 };
    this.wake();
  }

  setReachable(ok: boolean): void {
    this.reachable = ok;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  async getFeed(
    opts: { afterGeneration?: number; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<PolicyFeed> {
    this.calls += 1;
    if (!this.reachable) throw new NsxUnreachableError('connect ECONNREFUSED 127.0.0.1:1');
    if (
      this.generations &&
      opts.afterGeneration !== undefined &&
      (this.feed.policy_generation ?? 0) <= opts.afterGeneration
    ) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, opts.timeoutMs ?? 1000);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
        opts.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });
      if (!this.reachable) throw new NsxUnreachableError('connection reset');
    }
    const out = structuredClone(this.feed);
    if (!this.generations) delete out.policy_generation;
    return out;
  }

  async reportRealization(results: RealizationReport[]): Promise<void> {
    if (!this.reachable) throw new NsxUnreachableError('connect ECONNREFUSED 127.0.0.1:1');
    this.reports.push(structuredClone(results));
  }

  /** Latest report per intent path. */
  latest(): Map<string, RealizationReport> {
    const m = new Map<string, RealizationReport>();
    for (const batch of this.reports) for (const r of batch) m.set(r.intent_path, r);
    return m;
  }
}
