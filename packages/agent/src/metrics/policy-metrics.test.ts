import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type CountedPolicy, PolicyMetrics } from './policy-metrics.js';

describe('PolicyMetrics', () => {
  it('counts the policies of the cache, their ingress and egress rules and the FQDN names when scraped', async () => {
    const registry = new Registry();
    let policies: CountedPolicy[] = [];
    let names = 0;
    new PolicyMetrics(registry, { policies: () => policies, fqdnNames: () => names });
    const read = async () =>
      Object.fromEntries(
        await Promise.all(
          [
            'antrea_agent_networkpolicy_count',
            'antrea_agent_ingress_networkpolicy_rule_count',
            'antrea_agent_egress_networkpolicy_rule_count',
            'antrea_agent_fqdn_cache_size',
          ].map(async (n) => [
            n.replace('antrea_agent_', ''),
            (await registry.getSingleMetric(n)!.get()).values[0]!.value,
          ]),
        ),
      );
    expect(await read()).toEqual({
      networkpolicy_count: 0,
      ingress_networkpolicy_rule_count: 0,
      egress_networkpolicy_rule_count: 0,
      fqdn_cache_size: 0,
    });
    names = 4;
    policies = [
      { rules: [{ direction: 'In' }, { direction: 'In' }, { direction: 'Out' }] },
      { rules: [{ direction: 'Out' }] },
      {},
    ];
    expect(await read()).toEqual({
      networkpolicy_count: 3,
      ingress_networkpolicy_rule_count: 2,
      egress_networkpolicy_rule_count: 2,
      fqdn_cache_size: 4,
    });
  });
});
