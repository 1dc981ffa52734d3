import type { CrdTier } from '../inputs.js';
import {
  CNP_ADMIN_TIER_PRIORITY,
  MAX_SUPPORTED_TIERS,
  RESERVED_TIER_PRIORITIES,
  STATIC_TIERS,
} from '../tiers.js';
import { ALLOWED, deny, type ValidationResult } from './result.js';

const STATIC_NAMES = new Set(STATIC_TIERS.map((t) => t.name));

export interface TierValidationContext {
  /** Tiers that exist now (the one being validated excluded on CREATE). */
  existing: readonly CrdTier[];
  /** The upstream ClusterNetworkPolicy feature gate reserves priority 220. */
  clusterNetworkPolicyGate?: boolean;
}

export function validateTierCreate(tier: CrdTier, ctx: TierValidationContext): ValidationResult {
  const priority = tier.spec.priority;
  const name = tier.metadata.name ?? '';
  if (!Number.isInteger(priority) || priority < 0 || priority > 255)
    return deny(`tier ${name} priority ${priority} must be an integer between 0 and 255`);
  if (new Set(ctx.existing.map((t) => t.spec.priority)).size >= MAX_SUPPORTED_TIERS)
    return deny(`maximum number of Tiers supported: ${MAX_SUPPORTED_TIERS}`);
  if (RESERVED_TIER_PRIORITIES.has(priority)) return deny(`tier ${name} priority ${priority} is reserved`);
  if (ctx.clusterNetworkPolicyGate && priority === CNP_ADMIN_TIER_PRIORITY)
    return deny(
      `tier ${name} priority ${priority} is reserved for upstream ClusterNetworkPolicy when the ClusterNetworkPolicy feature gate is enabled; choose a different priority`,
    );
  if (ctx.existing.some((t) => t.spec.priority === priority))
    return deny(`tier ${name} priority ${priority} overlaps with existing Tier`);
  return ALLOWED;
}

/** Priority is immutable, except for antrea-controller itself (it may fix static Tiers). */
export function validateTierUpdate(
  cur: CrdTier,
  old: CrdTier,
  opts: { byController?: boolean } = {},
): ValidationResult {
  if (opts.byController) return ALLOWED;
  return cur.spec.priority !== old.spec.priority ? deny('update to Tier priority is not allowed') : ALLOWED;
}

export function validateTierDelete(
  tier: CrdTier,
  refs: { clusterNetworkPolicies: number; antreaNetworkPolicies: number },
): ValidationResult {
  const name = tier.metadata.name ?? '';
  if (STATIC_NAMES.has(name)) return deny(`cannot delete reserved tier ${name}`);
  if (refs.clusterNetworkPolicies > 0)
    return deny(`tier ${name} is referenced by ${refs.clusterNetworkPolicies} Antrea ClusterNetworkPolicies`);
  if (refs.antreaNetworkPolicies > 0)
    return deny(`tier ${name} is referenced by ${refs.antreaNetworkPolicies} Antrea NetworkPolicies`);
  return ALLOWED;
}
