import { type FlushStats, PolicyEngine } from '../compute/engine.js';

/**
 * The compute core with each flush timed: the informer adapter calls flush() per burst of events,
 * so this is where the controller's sync durations are measured, the whole pass here and each
 * kind's sync phase inside the engine (through its phaseClock, on the same clock).
 */
export class TimedPolicyEngine extends PolicyEngine {
  onFlush: ((seconds: number, stats: FlushStats) => void) | undefined;
  now: () => number = () => performance.now();
  override phaseClock: (() => number) | undefined = () => this.now();

  override flush(): FlushStats {
    const t0 = this.now();
    const stats = super.flush();
    this.onFlush?.((this.now() - t0) / 1000, stats);
    return stats;
  }
}
