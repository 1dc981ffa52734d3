import { hash } from 'node:crypto';
import type { CrdRule } from '../inputs.js';
import { marshalRule } from './go-json.js';

/** Length of the hash suffix in generated rule names (Antrea mutate.go ruleNameSuffixLen). */
export const RULE_NAME_SUFFIX_LEN = 7;

/**
 * The name Antrea's mutating webhook gives an unnamed rule: "<ingress|egress>-<action>-<hash>",
 * where hash is the first 7 hex digits of SHA-1 over the Go JSON encoding of the rule.
 */
export function defaultRuleName(prefix: 'ingress' | 'egress', rule: CrdRule): string {
  // One-shot hash(): a third of createHash().update().digest()'s cost, paid once per unnamed rule.
  const digest = hash('sha1', marshalRule(rule), 'hex').slice(0, RULE_NAME_SUFFIX_LEN);
  return `${prefix}-${(rule.action ?? '').toLowerCase()}-${digest}`;
}

/** Rule names as the webhook would leave them: given names kept, missing ones generated. */
export function effectiveRuleNames(
  prefix: 'ingress' | 'egress',
  rules: readonly CrdRule[] | undefined,
): string[] {
  return (rules ?? []).map((r) => (r.name ? r.name : defaultRuleName(prefix, r)));
}
