import type { CustomResource } from './meta.js';

export interface TierSpec {
  /** 0-255, lower is evaluated first; unique across Tiers and immutable. */
  priority: number;
  description?: string;
}

export interface Tier extends CustomResource<'Tier', 'crd.antrea.io/v1beta1'> {
  spec: TierSpec;
}

/** A Tier the Antrea Controller creates at start-up (pkg/controller/networkpolicy/tier.go). */
export interface StaticTier {
  readonly name: string;
  readonly priority: number;
  readonly description: string;
}

/** Priority of the "application" Tier, used by policies that name no Tier. */
export const DEFAULT_TIER_PRIORITY = 250;
/** Priority of the "baseline" Tier, the only one evaluated after Kubernetes NetworkPolicies. */
export const BASELINE_TIER_PRIORITY = 253;
export const DEFAULT_TIER_NAME = 'application';

/**
 * The system-generated Tiers, highest precedence first. Names and descriptions are what users
 * see in `kubectl get tiers`, so they match Antrea's byte for byte.
 */
export const STATIC_TIERS: readonly StaticTier[] = Object.freeze([
  { name: 'emergency', priority: 50, description: '[READ-ONLY]: System generated Emergency Tier' },
  { name: 'securityops', priority: 100, description: '[READ-ONLY]: System generated SecurityOps Tier' },
  { name: 'networkops', priority: 150, description: '[READ-ONLY]: System generated NetworkOps Tier' },
  { name: 'platform', priority: 200, description: '[READ-ONLY]: System generated Platform Tier' },
  {
    name: DEFAULT_TIER_NAME,
    priority: DEFAULT_TIER_PRIORITY,
    description: '[READ-ONLY]: System generated default Application Tier',
  },
  {
    name: 'baseline',
    priority: BASELINE_TIER_PRIORITY,
    description: '[READ-ONLY]: System generated Baseline Tier',
  },
]);

/**
 * Policies may name a static Tier in its legacy capitalised form ("SecurityOps"); Antrea maps
 * these to the lowercase Tier objects.
 */
export const LEGACY_STATIC_TIER_NAMES: readonly string[] = Object.freeze([
  'Emergency',
  'SecurityOps',
  'NetworkOps',
  'Platform',
  'Application',
  'Baseline',
]);
