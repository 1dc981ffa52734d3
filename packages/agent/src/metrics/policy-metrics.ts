import { Gauge, type Registry } from 'prom-client';

/** What a policy counts by: its rules' directions (a controlplane NetworkPolicy's shape). */
export interface CountedPolicy {
  readonly rules?: readonly { readonly direction?: string }[];
}

interface Counts {
  policies: number;
  ingress: number;
  egress: number;
}

function count(policies: Iterable<CountedPolicy>): Counts {
  const c: Counts = { policies: 0, ingress: 0, egress: 0 };
  for (const p of policies) {
    c.policies++;
    for (const r of p.rules ?? []) {
      if (r.direction === 'Out') c.egress++;
      else c.ingress++;
    }
  }
  return c;
}

/**
 * Antrea's NetworkPolicy gauges: the NetworkPolicies the controller sent this Node and their
 * ingress and egress rules, counted from the agent's rule cache when scraped (Antrea moves its
 * gauges as the cache changes; the values are the same).
 */
export class PolicyMetrics {
  constructor(registry: Registry, policies: () => Iterable<CountedPolicy>) {
    // Names are literals, one constructor each: docs/metrics.md's test reads them from the source.
    const registers = [registry];
    new Gauge({
      name: 'antrea_agent_networkpolicy_count',
      help: 'Number of NetworkPolicies on local Node which are managed by the Antrea Agent.',
      registers,
      collect() {
        this.set(count(policies()).policies);
      },
    });
    new Gauge({
      name: 'antrea_agent_ingress_networkpolicy_rule_count',
      help: 'Number of ingress NetworkPolicy rules on local Node which are managed by the Antrea Agent.',
      registers,
      collect() {
        this.set(count(policies()).ingress);
      },
    });
    new Gauge({
      name: 'antrea_agent_egress_networkpolicy_rule_count',
      help: 'Number of egress NetworkPolicy rules on local Node which are managed by the Antrea Agent.',
      registers,
      collect() {
        this.set(count(policies()).egress);
      },
    });
  }
}
