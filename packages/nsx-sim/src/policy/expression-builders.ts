// Short builders for the group expressions tests, benchmarks and demos write by hand.

/** A `Condition`: `member_type` `key` `operator` `value` (a tag is `scope|tag`, e.g. `dis:k8s:app|web`). */
export function condition(
  memberType: string,
  key: string,
  value: string,
  operator = 'EQUALS',
): Record<string, string> {
  return { resource_type: 'Condition', member_type: memberType, key, operator, value };
}

/** A `ConjunctionOperator` between two expressions. */
export function conjunction(op: 'AND' | 'OR'): Record<string, string> {
  return { resource_type: 'ConjunctionOperator', conjunction_operator: op };
}
