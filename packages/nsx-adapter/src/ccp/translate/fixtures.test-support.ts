import type {
  NsxExpression,
  NsxGroup,
  NsxRule,
  NsxSecurityPolicy,
  NsxService,
  PolicyFeed,
} from '../../nsx/types.js';

/** Builders for NSX objects as the Policy API renders them (test-only). */
export const D = '/infra/domains/default';
export const CLUSTER = '/infra/sites/default/enforcement-points/default/cluster-control-planes/kind-a';

export function group(id: string, expression: NsxExpression[], extra: Partial<NsxGroup> = {}): NsxGroup {
  return {
    id,
    path: `${D}/groups/${id}`,
    display_name: id,
    unique_id: `uid-${id}`,
    group_type: ['ANTREA'],
    expression,
    _revision: 0,
    ...extra,
  };
}

export const cond = (member_type: string, key: string, operator: string, value: string): NsxExpression => ({
  resource_type: 'Condition',
  member_type,
  key,
  operator,
  value,
});
export const podTag = (value: string, operator = 'EQUALS') => cond('Pod', 'Tag', operator, value);
export const nsName = (value: string, operator = 'EQUALS') => cond('Namespace', 'Name', operator, value);
export const AND: NsxExpression = { resource_type: 'ConjunctionOperator', conjunction_operator: 'AND' };
export const OR: NsxExpression = { resource_type: 'ConjunctionOperator', conjunction_operator: 'OR' };
export const nested = (...expressions: NsxExpression[]): NsxExpression => ({
  resource_type: 'NestedExpression',
  expressions,
});
export const ips = (...ip_addresses: string[]): NsxExpression => ({
  resource_type: 'IPAddressExpression',
  ip_addresses,
});

export function service(id: string, entries: NsxService['service_entries']): NsxService {
  return {
    id,
    path: `/infra/services/${id}`,
    display_name: id,
    unique_id: `uid-svc-${id}`,
    service_entries: entries,
  };
}
export const l4 = (proto: string, ...ports: string[]) => ({
  resource_type: 'L4PortSetServiceEntry',
  l4_protocol: proto,
  destination_ports: ports,
});

let nextRuleId = 1000;
export function rule(policyId: string, id: string, extra: Partial<NsxRule> = {}): NsxRule {
  nextRuleId += 1;
  return {
    id,
    path: `${D}/security-policies/${policyId}/rules/${id}`,
    rule_id: nextRuleId,
    sequence_number: 0,
    action: 'ALLOW',
    direction: 'IN_OUT',
    ip_protocol: 'IPV4_IPV6',
    source_groups: ['ANY'],
    destination_groups: ['ANY'],
    services: ['ANY'],
    scope: ['ANY'],
    logged: false,
    disabled: false,
    ...extra,
  };
}

export function policy(
  id: string,
  rules: NsxRule[],
  extra: Partial<NsxSecurityPolicy> = {},
): NsxSecurityPolicy {
  return {
    id,
    path: `${D}/security-policies/${id}`,
    display_name: id,
    unique_id: `uid-${id}`,
    category: 'Application',
    sequence_number: 0,
    scope: ['ANY'],
    stateful: true,
    _revision: 3,
    rules,
    ...extra,
  };
}

export function feed(
  policies: NsxSecurityPolicy[],
  groups: NsxGroup[] = [],
  services: NsxService[] = [],
): PolicyFeed {
  return {
    container_cluster_path: CLUSTER,
    policy_generation: 1,
    security_policies: policies,
    groups,
    services,
  };
}

export const gp = (id: string) => `${D}/groups/${id}`;
