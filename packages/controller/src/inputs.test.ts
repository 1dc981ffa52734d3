import type { AntreaNetworkPolicy, ClusterGroup, ClusterNetworkPolicy, Group, Tier } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdNetworkPolicy, CrdTier } from './inputs.js';

// The engine's structural input types must accept the crd.antrea.io types of @antrea-ts/apis, so
// that objects from the informers flow in without conversion. These assignments fail to compile
// when the two drift apart.
const acnp = (x: ClusterNetworkPolicy): CrdClusterNetworkPolicy => x;
const annp = (x: AntreaNetworkPolicy): CrdNetworkPolicy => x;
const cg = (x: ClusterGroup): CrdGroup => x;
const g = (x: Group): CrdGroup => x;
const tier = (x: Tier): CrdTier => x;

describe('input types', () => {
  it('accept the @antrea-ts/apis crd types', () => {
    expect([acnp, annp, cg, g, tier].every((f) => typeof f === 'function')).toBe(true);
  });
});
