import { describe, expect, it } from 'vitest';
import { crdFor } from './crds.js';
import {
  BASELINE_TIER_PRIORITY,
  DEFAULT_TIER_NAME,
  DEFAULT_TIER_PRIORITY,
  LEGACY_STATIC_TIER_NAMES,
  STATIC_TIERS,
} from './tier.js';

describe('STATIC_TIERS', () => {
  it('are the six tiers Antrea creates, with its priorities', () => {
    expect(STATIC_TIERS.map((t) => [t.name, t.priority])).toEqual([
      ['emergency', 50],
      ['securityops', 100],
      ['networkops', 150],
      ['platform', 200],
      ['application', 250],
      ['baseline', 253],
    ]);
  });

  it('put the default tier at DEFAULT_TIER_PRIORITY and baseline after it', () => {
    expect(STATIC_TIERS.find((t) => t.name === DEFAULT_TIER_NAME)?.priority).toBe(DEFAULT_TIER_PRIORITY);
    expect(STATIC_TIERS.at(-1)).toEqual(
      expect.objectContaining({ name: 'baseline', priority: BASELINE_TIER_PRIORITY }),
    );
  });

  it('fit the Tier schema range and are marked read-only', () => {
    const range =
      crdFor('Tier').spec.versions[0]?.schema.openAPIV3Schema.properties?.['spec']?.properties?.['priority'];
    for (const t of STATIC_TIERS) {
      expect(t.priority).toBeGreaterThanOrEqual(range?.minimum ?? Number.NaN);
      expect(t.priority).toBeLessThanOrEqual(range?.maximum ?? Number.NaN);
      expect(t.description).toMatch(/^\[READ-ONLY\]: System generated /);
    }
  });

  it('have a legacy capitalised alias each', () => {
    expect(LEGACY_STATIC_TIER_NAMES.map((n) => n.toLowerCase())).toEqual(STATIC_TIERS.map((t) => t.name));
  });

  it('cannot be modified', () => {
    expect(Object.isFrozen(STATIC_TIERS)).toBe(true);
  });
});
