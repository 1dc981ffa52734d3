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

export interface PolicyMetricsSource {
  /** The NetworkPolicies of the agent's rule cache. */
  policies(): Iterable<CountedPolicy>;
  /** Domain names the FQDN cache tracks for the rules of local Pods. */
  fqdnNames(): number;
}

/**
 * Antrea's NetworkPolicy gauges: the NetworkPolicies the controller sent this Node, their ingress
 * and egress rules, and the FQDN cache's names, counted from the agent's caches when scraped
 * (Antrea moves its gauges as the caches change; the values are the same).
 */
export class PolicyMetrics {
  constructor(registry: Registry, source: PolicyMetricsSource) {
    const policies = () => source.policies();
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
    new Gauge({
      name: 'antrea_agent_fqdn_cache_size',
      help: 'Number of domain names which the Antrea Agent tracks for the FQDN rules of the NetworkPolicies applied to local Pods.',
      registers,
      collect() {
        this.set(source.fqdnNames());
      },
    });
  }
}
