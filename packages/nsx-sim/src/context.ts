import type { Logger } from 'pino';
import type { Clock, IdSource } from './clock.js';
import type { PolicyTree } from './policy/policy-tree.js';
import type { SimStore } from './state/sim-store.js';

/** What every route module gets. */
export interface SimContext {
  store: SimStore;
  tree: PolicyTree;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  /** Largest support-bundle archive the sim keeps, in bytes. */
  maxArchiveBytes: number;
}
