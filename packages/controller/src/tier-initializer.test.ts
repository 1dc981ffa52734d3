import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CrdTier } from './inputs.js';
import { initializeTiers, type TierClient } from './tier-initializer.js';

describe('initializeTiers', () => {
  it('creates missing static Tiers, restores a changed priority and retries failures', async () => {
    const tiers = new Map<string, CrdTier>([
      ['application', { metadata: { name: 'application' }, spec: { priority: 1 } }],
    ]);
    let failures = 2;
    const calls: string[] = [];
    const client: TierClient = {
      get: async (n) => tiers.get(n),
      create: async (t) => {
        if (failures-- > 0) throw new Error('webhook not ready');
        calls.push(`create ${t.metadata.name}`);
        tiers.set(t.metadata.name!, t);
      },
      update: async (t) => {
        calls.push(`update ${t.metadata.name}`);
        tiers.set(t.metadata.name!, t);
      },
    };
    await initializeTiers(client, pino({ level: 'silent' }), { backoffMs: [1] });
    expect(Object.fromEntries([...tiers].map(([n, t]) => [n, t.spec.priority]))).toEqual({
      application: 250,
      baseline: 253,
      platform: 200,
      networkops: 150,
      securityops: 100,
      emergency: 50,
    });
    expect(calls).toContain('update application');
    expect(calls.filter((c) => c.startsWith('create'))).toHaveLength(5);
  });
});
