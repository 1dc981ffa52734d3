import { isDeepStrictEqual } from 'node:util';
import { forEachLimit } from '../clock.js';
import type { KubeObject, ManagedCrdStore, ManagedKind } from '../k8s/types.js';
import { PARENT_ANNOTATION } from '../labels.js';
import type { DesiredState } from './translate/feed.js';

export interface ReconcileResult {
  created: number;
  updated: number;
  deleted: number;
  failures: { kind: ManagedKind; name: string; error: unknown }[];
}

/** Our labels/annotations present with our values, and the spec exactly ours. */
export function inSync(desired: KubeObject, actual: KubeObject): boolean {
  if (!isDeepStrictEqual(desired.spec, actual.spec)) return false;
  for (const field of ['labels', 'annotations'] as const) {
    const want = desired.metadata?.[field] ?? {};
    const have = actual.metadata?.[field] ?? {};
    for (const [k, v] of Object.entries(want)) if (have[k] !== v) return false;
  }
  return true;
}

/** The actual object with our spec, labels and annotations; everything else (status, other keys) kept. */
function merged(desired: KubeObject, actual: KubeObject): KubeObject {
  return {
    ...actual,
    metadata: {
      ...actual.metadata,
      labels: { ...(actual.metadata?.labels ?? {}), ...(desired.metadata?.labels ?? {}) },
      annotations: { ...(actual.metadata?.annotations ?? {}), ...(desired.metadata?.annotations ?? {}) },
    },
    spec: desired.spec,
  };
}

const isChild = (o: KubeObject) => o.metadata?.annotations?.[PARENT_ANNOTATION] !== undefined;

/**
 * Makes the managed objects in the cluster equal to `desired`: creates what is missing, replaces
 * what differs (spec, or our labels/annotations) and deletes managed objects NSX no longer has.
 * The store only ever holds objects with the managed-by label, so nothing else is touched.
 *
 * Order keeps references valid at every step: Tiers, child ClusterGroups, parent ClusterGroups,
 * ACNPs are written first; then stale ACNPs, parent groups, child groups and Tiers are deleted.
 * A Tier's priority is immutable in Antrea, so a Tier whose priority differs is recreated.
 */
export async function reconcile(
  desired: DesiredState,
  store: ManagedCrdStore,
  concurrency = 16,
): Promise<ReconcileResult> {
  const result: ReconcileResult = { created: 0, updated: 0, deleted: 0, failures: [] };
  const apply = async (kind: ManagedKind, objects: KubeObject[]) => {
    const failures = await forEachLimit(objects, concurrency, async (want) => {
      const name = want.metadata?.name ?? '';
      const have = store.get(kind, name);
      if (!have) {
        await store.create(kind, want);
        result.created += 1;
        return;
      }
      if (inSync(want, have)) return;
      const immutable =
        kind === 'Tier' &&
        !isDeepStrictEqual(
          (want.spec as { priority?: number })?.priority,
          (have.spec as { priority?: number })?.priority,
        );
      if (immutable) {
        await store.delete(kind, name);
        await store.create(kind, want);
      } else {
        await store.replace(kind, merged(want, have));
      }
      result.updated += 1;
    });
    for (const f of failures)
      result.failures.push({ kind, name: f.item.metadata?.name ?? '', error: f.error });
  };
  const remove = async (
    kind: ManagedKind,
    keep: ReadonlySet<string>,
    filter: (o: KubeObject) => boolean = () => true,
  ) => {
    const stale = store.list(kind).filter((o) => !keep.has(o.metadata?.name ?? '') && filter(o));
    const failures = await forEachLimit(stale, concurrency, async (o) => {
      await store.delete(kind, o.metadata?.name ?? '');
      result.deleted += 1;
    });
    for (const f of failures)
      result.failures.push({ kind, name: f.item.metadata?.name ?? '', error: f.error });
  };
  const names = (list: KubeObject[]) => new Set(list.map((o) => o.metadata?.name ?? ''));

  const groups = desired.clusterGroups as KubeObject[];
  await apply('Tier', desired.tiers as KubeObject[]);
  await apply('ClusterGroup', groups.filter(isChild));
  await apply(
    'ClusterGroup',
    groups.filter((g) => !isChild(g)),
  );
  await apply('ClusterNetworkPolicy', desired.policies as KubeObject[]);

  await remove('ClusterNetworkPolicy', names(desired.policies as KubeObject[]));
  const keepGroups = names(groups);
  await remove('ClusterGroup', keepGroups, (o) => !isChild(o));
  await remove('ClusterGroup', keepGroups, isChild);
  await remove('Tier', names(desired.tiers as KubeObject[]));
  return result;
}
