import { defaultRuleName } from '../compute/rule-name.js';
import type { CrdRule } from '../inputs.js';
import { DEFAULT_TIER_NAME } from '../tiers.js';
import type { AdmissionDecision, AdmissionRequest, JsonPatchOperation } from './admission.js';

/**
 * Antrea's NetworkPolicyMutator (pkg/controller/networkpolicy/mutate.go) for ClusterNetworkPolicy
 * and Antrea NetworkPolicy: on CREATE and UPDATE every unnamed rule gets
 * "<ingress|egress>-<action>-<sha1[:7]>" and an empty spec.tier becomes "application".
 */
export function mutateAntreaPolicy(req: AdmissionRequest): AdmissionDecision {
  const kind = req.kind.kind;
  if (kind !== 'ClusterNetworkPolicy' && kind !== 'NetworkPolicy') return { allowed: false };
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return { allowed: true };
  const obj = req.object as { spec?: { ingress?: CrdRule[]; egress?: CrdRule[]; tier?: string } } | null;
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    throw new Error('json: cannot unmarshal the policy: not a JSON object');
  const spec = obj.spec ?? {};
  const patch: JsonPatchOperation[] = [];
  for (const prefix of ['ingress', 'egress'] as const) {
    (spec[prefix] ?? []).forEach((rule, i) => {
      if (rule.name) return;
      // "add" sets an object member whether or not it exists (Antrea sends "replace").
      patch.push({ op: 'add', path: `/spec/${prefix}/${i}/name`, value: defaultRuleName(prefix, rule) });
    });
  }
  if (!spec.tier) {
    if (obj.spec === undefined) patch.push({ op: 'add', path: '/spec', value: {} });
    patch.push({ op: 'add', path: '/spec/tier', value: DEFAULT_TIER_NAME });
  }
  return { allowed: true, patch };
}
