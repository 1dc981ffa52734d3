import { type FlushStats, PolicyEngine } from '../compute/engine.js';

/**
 * The compute core with each flush timed: the informer adapter calls flush() per burst of events,
 * so this is where the controller's sync duration is measured without touching the engine.
 */
export class TimedPolicyEngine extends PolicyEngine {
  onFlush: ((seconds: number, stats: FlushStats) => void) | undefined;
  now: () => number = () => performance.now();

  override flush(): FlushStats {
    const t0 = this.now();
    const stats = super.flush();
    this.onFlush?.((this.now() - t0) / 1000, stats);
    return stats;
  }
}
