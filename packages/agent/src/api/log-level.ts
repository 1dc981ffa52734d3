import type { Level, Logger } from 'pino';

/**
 * The agent's log verbosity as Antrea exposes it (`/loglevel?level=N`, klog's -v): 0 and 1 are
 * pino's info, 2-3 debug, 4 and above trace. pino children copy their level when created, so
 * every logger made from the root (through its onChild hook) is tracked and changed together.
 */
export class LogLevelControl {
  private verbosity: number;
  private readonly loggers = new Set<WeakRef<Logger>>();
  private readonly registry = new FinalizationRegistry<WeakRef<Logger>>((ref) => this.loggers.delete(ref));

  constructor(initial = 0) {
    this.verbosity = initial;
  }

  /** Pass as pino's `onChild` option, and call `track(root)` once. */
  readonly onChild = (child: Logger): void => this.track(child);

  track(logger: Logger): void {
    const ref = new WeakRef(logger);
    this.loggers.add(ref);
    this.registry.register(logger, ref);
  }

  get level(): number {
    return this.verbosity;
  }

  set(verbosity: number): void {
    this.verbosity = verbosity;
    const level = pinoLevel(verbosity);
    for (const ref of this.loggers) {
      const l = ref.deref();
      if (l) l.level = level;
      else this.loggers.delete(ref);
    }
  }
}

export function pinoLevel(verbosity: number): Level {
  if (verbosity >= 4) return 'trace';
  if (verbosity >= 2) return 'debug';
  return 'info';
}
