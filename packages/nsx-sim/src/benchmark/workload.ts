import { condition, conjunction } from '../policy/expression-builders.js';

/** The NSX side of the adapter benchmarks: groups and security policies spanned to one cluster. */
export interface PolicyWorkloadOptions {
  readonly policies: number;
  readonly rules: number;
  readonly groups: number;
  /** Rules and scopes use only the first `referenced` groups (default: all). */
  readonly referenced?: number;
  /** ClusterControlPlane id the policies are spanned to. */
  readonly cluster: string;
}

/** One Policy API PATCH: path under /policy/api/v1 and its body. */
export interface PolicyPatch {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const DOMAIN = '/infra/domains/default';
const CATEGORIES = ['Emergency', 'Infrastructure', 'Environment', 'Application'];

/**
 * Groups g<i> (a Pod tag OR a Namespace name), then per policy p<i> its rules (ALLOW, the last one
 * DROP; HTTP and HTTPS alternating; the first logged), its scope and its span, in the order NSX
 * needs them (groups before the rules that reference them).
 */
export function* policyWorkload(o: PolicyWorkloadOptions): Generator<PolicyPatch> {
  const referenced = Math.min(o.referenced ?? o.groups, o.groups);
  const group = (i: number) => `${DOMAIN}/groups/g${i % referenced}`;
  for (let g = 0; g < o.groups; g++) {
    yield {
      path: `${DOMAIN}/groups/g${g}`,
      body: {
        group_type: ['ANTREA'],
        expression: [
          condition('Pod', 'Tag', `dis:k8s:app|app-${g}`),
          conjunction('OR'),
          condition('Namespace', 'Name', `ns-${g % 50}`),
        ],
      },
    };
  }
  for (let p = 0; p < o.policies; p++) {
    const rules = Array.from({ length: o.rules }, (_, r) => ({
      id: `r${r}`,
      sequence_number: r,
      action: r === o.rules - 1 ? 'DROP' : 'ALLOW',
      direction: 'IN',
      source_groups: [group(p * 2 + r)],
      services: [r % 2 === 0 ? '/infra/services/HTTP' : '/infra/services/HTTPS'],
      logged: r === 0,
    }));
    const policy = `${DOMAIN}/security-policies/p${p}`;
    yield {
      path: policy,
      body: {
        category: CATEGORIES[p % CATEGORIES.length],
        sequence_number: p,
        scope: [group(p * 2 + 1)],
        rules,
      },
    };
    yield {
      path: `${policy}/container-cluster-span/${o.cluster}`,
      body: {
        container_cluster_path: `/infra/sites/default/enforcement-points/default/cluster-control-planes/${o.cluster}`,
      },
    };
  }
}
