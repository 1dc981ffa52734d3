import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { CrdNetworkPolicyStatus } from '../inputs.js';
import type { StatusWriter } from '../status/status-controller.js';
import { StatusUpdateMetrics } from './status-update-metrics.js';

describe('StatusUpdateMetrics', () => {
  it('counts the status writes that succeeded, per kind of policy', async () => {
    const written: string[] = [];
    let fail = false;
    const writer: StatusWriter = {
      updateClusterNetworkPolicyStatus: async (name) => {
        if (fail) throw new Error('conflict');
        written.push(name);
      },
      updateAntreaNetworkPolicyStatus: async (namespace, name) => {
        written.push(`${namespace}/${name}`);
      },
    };
    const registry = new Registry();
    const counted = new StatusUpdateMetrics(registry).counting(writer);
    const status: CrdNetworkPolicyStatus = {
      phase: 'Realized',
      observedGeneration: 1,
      currentNodesRealized: 1,
      desiredNodesRealized: 1,
      conditions: [],
    };
    await counted.updateClusterNetworkPolicyStatus('acnp', status);
    await counted.updateAntreaNetworkPolicyStatus('ns', 'annp', status);
    await counted.updateAntreaNetworkPolicyStatus('ns', 'annp', status);
    fail = true;
    await expect(counted.updateClusterNetworkPolicyStatus('acnp', status)).rejects.toThrow('conflict');
    expect(written).toEqual(['acnp', 'ns/annp', 'ns/annp']);
    const text = await registry.metrics();
    expect(text).toContain('antrea_controller_acnp_status_updates 1');
    expect(text).toContain('antrea_controller_annp_status_updates 2');
  });
});
