import type { ClusterGroup, ClusterNetworkPolicy, Tier } from '@antrea-ts/apis';
import { TranslationError } from '../../errors.js';
import type { NsxSecurityPolicy, NsxService, PolicyFeed } from '../../nsx/types.js';
import { type TranslatedGroup, translateGroup } from './groups.js';
import { translatePolicy } from './policy.js';
import { tieRanks } from './priority.js';
import { categoryTiers } from './tiers.js';

/** The translation result of one NSX security policy, for realization reporting. */
export interface PolicyOutcome {
  /** NSX policy path (the realization intent path). */
  path: string;
  revision: number;
  /** ACNP name (NSX unique_id) when the policy was translated. */
  name: string | undefined;
  displayName: string;
  /** Translation errors; non-empty means no ACNP exists for this policy. */
  errors: string[];
}

/** Every object the CCP adapter wants in the cluster, computed from NSX alone. */
export interface DesiredState {
  tiers: Tier[];
  clusterGroups: ClusterGroup[];
  policies: ClusterNetworkPolicy[];
  outcomes: PolicyOutcome[];
}

/**
 * Translates a whole policy feed. Pure: same feed in, same objects out (in a stable order).
 * A policy with any untranslatable part yields no ACNP and an outcome with errors; a group with an
 * untranslatable expression fails every policy that uses it. Only groups used by translated
 * policies are emitted, so a failing policy leaves nothing half-made behind.
 */
export function translateFeed(feed: PolicyFeed): DesiredState {
  const services = new Map<string, NsxService>(feed.services.map((s) => [s.path, s]));
  const groups = new Map<string, TranslatedGroup | TranslationError>();
  for (const g of feed.groups) {
    if (g.marked_for_delete) continue;
    try {
      groups.set(g.path, translateGroup(g));
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      groups.set(g.path, err);
    }
  }
  const live = feed.security_policies.filter((p) => !p.marked_for_delete);
  const byCategory = new Map<string, NsxSecurityPolicy[]>();
  for (const p of live) {
    const c = p.category ?? 'Application';
    byCategory.set(c, [...(byCategory.get(c) ?? []), p]);
  }
  const ranks = new Map<string, number>();
  for (const list of byCategory.values()) for (const [id, r] of tieRanks(list)) ranks.set(id, r);

  const policies: ClusterNetworkPolicy[] = [];
  const outcomes: PolicyOutcome[] = [];
  const usedGroups = new Set<string>();
  for (const p of live) {
    const outcome: PolicyOutcome = {
      path: p.path,
      revision: p._revision ?? 0,
      name: undefined,
      displayName: p.display_name ?? p.id,
      errors: [],
    };
    try {
      const t = translatePolicy(p, { groups, services, tieRank: ranks.get(p.id) ?? 0 });
      policies.push(t.policy);
      outcome.name = t.policy.metadata.name;
      for (const g of t.groupPaths) usedGroups.add(g);
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      outcome.errors = [...err.details];
    }
    outcomes.push(outcome);
  }
  const clusterGroups: ClusterGroup[] = [];
  const emitted = new Set<string>();
  for (const path of [...usedGroups].sort()) {
    const g = groups.get(path);
    if (!g || g instanceof TranslationError) continue;
    for (const o of g.objects) {
      const name = o.metadata.name as string;
      // Two NSX paths cannot share a unique_id, but guard against a feed that repeats a group.
      if (emitted.has(name)) continue;
      emitted.add(name);
      clusterGroups.push(o);
    }
  }
  policies.sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  return { tiers: categoryTiers(), clusterGroups, policies, outcomes };
}
