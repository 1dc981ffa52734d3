import type { CompletedRule } from '../networkpolicy/rule-cache.js';
import type { TracedRule } from './observations.js';

/**
 * How Traceflow names a rule (Antrea's NetworkPolicyReference.ToString): the policy as
 * `<type>:<namespace>/<name>` (`<type>:<name>` for cluster-scoped policies) and the rule's name.
 */
export function tracedRule(rule: CompletedRule): TracedRule {
  const ref = rule.policy.sourceRef;
  const type = ref?.type ?? 'K8sNetworkPolicy';
  const name = ref?.name ?? rule.policy.metadata.name ?? '';
  const policy = ref?.namespace ? `${type}:${ref.namespace}/${name}` : `${type}:${name}`;
  return { policy, rule: rule.rule.name ?? '', action: rule.action };
}
