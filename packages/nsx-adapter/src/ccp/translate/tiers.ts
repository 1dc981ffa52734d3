import { CRD_KINDS, type Tier } from '@antrea-ts/apis';
import { managedMeta } from './meta.js';

/**
 * One Tier per NSX DFW category, in NSX precedence order (Ethernet, then Emergency > Infrastructure >
 * Environment > Application). Names and priorities are the ones the real adapter creates (research
 * notes §3): 0-4, all ahead of Antrea's static Tiers (emergency 50 ... baseline 253), so NSX policies
 * are evaluated before any policy written in the cluster, as they are in NSX.
 */
export const NSX_CATEGORIES = [
  'Ethernet',
  'Emergency',
  'Infrastructure',
  'Environment',
  'Application',
] as const;
export type NsxCategory = (typeof NSX_CATEGORIES)[number];

/** Categories whose policies the adapter can realize (Ethernet is L2: not supported for Antrea). */
export const SUPPORTED_CATEGORIES: ReadonlySet<string> = new Set([
  'Emergency',
  'Infrastructure',
  'Environment',
  'Application',
]);

export function tierName(category: NsxCategory): string {
  return `nsx-category-${category.toLowerCase()}`;
}

export function tierPriority(category: NsxCategory): number {
  return NSX_CATEGORIES.indexOf(category);
}

export function isNsxCategory(c: unknown): c is NsxCategory {
  return typeof c === 'string' && (NSX_CATEGORIES as readonly string[]).includes(c);
}

/** The Tier objects, always all five so a category's Tier exists before its first policy arrives. */
export function categoryTiers(): Tier[] {
  return NSX_CATEGORIES.map((category) => ({
    apiVersion: CRD_KINDS.Tier.apiVersion as 'crd.antrea.io/v1beta1',
    kind: 'Tier' as const,
    metadata: managedMeta(tierName(category), category),
    spec: { priority: tierPriority(category), description: `NSX DFW category ${category}` },
  }));
}
