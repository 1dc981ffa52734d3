import type { CrdTier } from './inputs.js';

/** Tiers antrea-controller creates at start-up (pkg/controller/networkpolicy/tier.go), by name. */
export const STATIC_TIERS: ReadonlyArray<{ name: string; priority: number; description: string }> = [
  { name: 'baseline', priority: 253, description: '[READ-ONLY]: System generated Baseline Tier' },
  {
    name: 'application',
    priority: 250,
    description: '[READ-ONLY]: System generated default Application Tier',
  },
  { name: 'platform', priority: 200, description: '[READ-ONLY]: System generated Platform Tier' },
  { name: 'networkops', priority: 150, description: '[READ-ONLY]: System generated NetworkOps Tier' },
  { name: 'securityops', priority: 100, description: '[READ-ONLY]: System generated SecurityOps Tier' },
  { name: 'emergency', priority: 50, description: '[READ-ONLY]: System generated Emergency Tier' },
];

export const DEFAULT_TIER_NAME = 'application';
export const BASELINE_TIER_NAME = 'baseline';
/** Priorities no user Tier may take (251, 252, 254, 255). */
export const RESERVED_TIER_PRIORITIES: ReadonlySet<number> = new Set([251, 252, 254, 255]);
/** Taken by the upstream ClusterNetworkPolicy admin tier when that feature gate is on. */
export const CNP_ADMIN_TIER_PRIORITY = 220;
/** Soft limit on the number of Tiers. */
export const MAX_SUPPORTED_TIERS = 20;

/** Pre-0.10 capitalized static tier names map to the lowercase Tier objects. */
const LEGACY_STATIC_NAMES = new Set([
  'Emergency',
  'SecurityOps',
  'NetworkOps',
  'Platform',
  'Application',
  'Baseline',
]);

/** The Tier object name a policy's `tier` field refers to. */
export function tierObjectName(tier: string): string {
  return LEGACY_STATIC_NAMES.has(tier) ? tier.toLowerCase() : tier;
}

/** The static Tiers as crd.antrea.io/v1beta1 objects, for creation at start-up. */
export function staticTierObjects(): CrdTier[] {
  return STATIC_TIERS.map((t) => ({
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'Tier',
    metadata: { name: t.name },
    spec: { priority: t.priority, description: t.description },
  }));
}
