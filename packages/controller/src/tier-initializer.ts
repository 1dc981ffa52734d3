import type { Logger } from 'pino';
import type { CrdTier } from './inputs.js';
import { staticTierObjects } from './tiers.js';

/** Tier access the initializer needs (a k8s-backed implementation and a test double). */
export interface TierClient {
  get(name: string): Promise<CrdTier | undefined>;
  create(tier: CrdTier): Promise<void>;
  update(tier: CrdTier): Promise<void>;
}

export interface InitializeTiersOptions {
  signal?: AbortSignal;
  /** Waits between attempts: 1 s doubling up to 8 s, as Antrea's InitializeTiers. */
  backoffMs?: readonly number[];
}

const DEFAULT_BACKOFF = [1000, 2000, 4000, 8000];

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * Creates the static Tiers, or puts back their priority when it differs, retrying each until it
 * succeeds (creation fails while the validating webhook is not reachable yet). Antrea runs this as
 * the `initialize-tiers` post-start hook of its API server.
 */
export async function initializeTiers(
  client: TierClient,
  logger: Logger,
  opts: InitializeTiersOptions = {},
): Promise<void> {
  const log = logger.child({ component: 'tier-initializer' });
  const backoff = opts.backoffMs ?? DEFAULT_BACKOFF;
  for (const tier of staticTierObjects()) {
    const name = tier.metadata.name!;
    for (let attempt = 0; ; attempt++) {
      try {
        const existing = await client.get(name);
        if (!existing) await client.create(tier);
        else if (existing.spec.priority !== tier.spec.priority)
          await client.update({ ...existing, spec: { ...existing.spec, priority: tier.spec.priority } });
        break;
      } catch (err) {
        log.info({ err, tier: name, attempt: attempt + 1 }, 'initializing system Tier failed; will retry');
        await sleep(backoff[Math.min(attempt, backoff.length - 1)]!, opts.signal);
      }
    }
  }
}
