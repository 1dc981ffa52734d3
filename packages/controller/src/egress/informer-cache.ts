import type { InformerLike } from '../informers/informers.js';

type Named = { metadata?: { name?: string; namespace?: string } };

/** `namespace/name` (an empty namespace for cluster-scoped objects). */
export const objectKey = (o: Named): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** A cache fed by one informer's events (optionally keeping a reduced copy of each object). */
export function followInto<T extends Named>(
  informer: InformerLike<T>,
  cache: Map<string, T>,
  changed: () => void,
  keep: (o: T) => T = (o) => o,
): void {
  informer.on('add', (o) => {
    cache.set(objectKey(o), keep(o));
    changed();
  });
  informer.on('update', (o) => {
    cache.set(objectKey(o), keep(o));
    changed();
  });
  informer.on('delete', (o) => {
    cache.delete(objectKey(o));
    changed();
  });
}

/**
 * client-node informers stop on a failed list or watch (e.g. the CRDs not installed yet): each is
 * started again after `retryMs` while `active()`.
 */
export function restartStoppedInformers(
  informers: ReadonlyArray<InformerLike<never>>,
  active: () => boolean,
  onError: (err: unknown) => void,
  retryMs: number,
): void {
  for (const informer of informers) {
    informer.on('error', (err) => {
      if (!active()) return;
      onError(err);
      setTimeout(() => {
        if (active()) void informer.start().catch(() => undefined);
      }, retryMs);
    });
  }
}
