import { isIP } from 'node:net';
import type { NsxObject } from '../state/types.js';

/**
 * Semantic checks on Group `expression` lists, following NSX's documented rules (research notes §1.5).
 * The JSON schema already checked shapes and enums; this checks structure and combinations.
 */

export const CONDITION_MEMBER_TYPES = [
  'IPSet',
  'VirtualMachine',
  'LogicalPort',
  'LogicalSwitch',
  'Segment',
  'SegmentPort',
  'Pod',
  'Service',
  'Namespace',
  'TransportNode',
  'Group',
  'DVPG',
  'DVPort',
  'IPAddress',
  'VpcSubnet',
  'KubernetesCluster',
  'KubernetesNamespace',
  'AntreaEgress',
  'AntreaIPPool',
  'KubernetesIngress',
  'KubernetesGateway',
  'KubernetesService',
  'KubernetesNode',
  'VpcSubnetPort',
  'BareMetalServer',
  'BareMetalServerInterface',
  'Tier0',
  'Tier1',
] as const;

export const CONDITION_KEYS = [
  'Tag',
  'Name',
  'OSName',
  'ComputerName',
  'NodeType',
  'GroupType',
  'ALL',
  'IPAddress',
  'PodCidr',
  'ManagementInterface',
  'OSVersion',
] as const;

export const CONDITION_OPERATORS = [
  'EQUALS',
  'CONTAINS',
  'STARTSWITH',
  'ENDSWITH',
  'NOTEQUALS',
  'NOTIN',
  'MATCHES',
  'IN',
] as const;

export const EXPRESSION_TYPES = [
  'Condition',
  'ConjunctionOperator',
  'NestedExpression',
  'IPAddressExpression',
  'MACAddressExpression',
  'PathExpression',
  'ExternalIDExpression',
  'IdentityGroupExpression',
  'GeoLocationExpression',
] as const;

/** Member types of Antrea groups (group_type ANTREA). */
const ANTREA_MEMBER_TYPES = new Set(['Pod', 'Namespace', 'Service']);
/** Member types that may never form a criterion alone in a generic group. */
const NEVER_ALONE = new Set(['KubernetesCluster', 'KubernetesNamespace']);
/** Expression types that may only be combined with OR. */
const OR_ONLY = new Set([
  'IPAddressExpression',
  'MACAddressExpression',
  'PathExpression',
  'ExternalIDExpression',
]);
const MAX_CRITERIA = 5;
const MAX_CONDITIONS = 35;

type Expr = NsxObject & { resource_type?: string };

function rt(e: Expr | undefined): string {
  return typeof e?.resource_type === 'string' ? e.resource_type : '';
}

/** Validates an IP, CIDR or range "a-b"; returns the family (4/6) or 0. */
export function ipFamily(value: string): 4 | 6 | 0 {
  const range = value.split('-');
  if (range.length === 2) {
    const a = isIP(range[0] ?? '');
    const b = isIP(range[1] ?? '');
    return a !== 0 && a === b ? (a as 4 | 6) : 0;
  }
  const [addr, prefix, extra] = value.split('/');
  if (extra !== undefined) return 0;
  const fam = isIP(addr ?? '');
  if (fam === 0) return 0;
  if (prefix !== undefined) {
    if (!/^\d{1,3}$/.test(prefix)) return 0;
    const n = Number(prefix);
    if (n > (fam === 4 ? 32 : 128)) return 0;
  }
  return fam as 4 | 6;
}

function conditionErrors(c: Expr, where: string, antrea: boolean): string[] {
  const errs: string[] = [];
  const value = c['value'];
  if (typeof value !== 'string') errs.push(`${where}: Condition.value is required`);
  if (c['key'] === 'Tag' && typeof value === 'string' && value.split('|').length > 2) {
    errs.push(`${where}: Tag value must be "scope|tag", "|tag" or "tag", got "${value}"`);
  }
  if (antrea) {
    if (!ANTREA_MEMBER_TYPES.has(String(c['member_type']))) {
      errs.push(
        `${where}: member_type ${String(c['member_type'])} is not allowed in an ANTREA group (Pod, Namespace, Service)`,
      );
    }
    if (c['key'] !== 'Name' && c['key'] !== 'Tag') {
      errs.push(`${where}: key ${String(c['key'])} is not allowed in an ANTREA group (Name, Tag)`);
    }
  }
  if (c['member_type'] === 'KubernetesNode' && c['operator'] !== 'MATCHES') {
    errs.push(`${where}: KubernetesNode conditions only support operator MATCHES with value "*"`);
  }
  if (c['operator'] === 'IN' && typeof value === 'string' && value.split(',').length > 5) {
    errs.push(`${where}: operator IN accepts at most 5 comma-separated values`);
  }
  return errs;
}

/** Checks alternation: odd length, conjunctions exactly at odd indices. */
function alternationErrors(list: Expr[], where: string): string[] {
  const errs: string[] = [];
  if (list.length % 2 === 0) {
    errs.push(
      `${where}: expression list must have an odd number of entries (criteria separated by ConjunctionOperator)`,
    );
  }
  list.forEach((e, i) => {
    const isConj = rt(e) === 'ConjunctionOperator';
    if (i % 2 === 1 && !isConj)
      errs.push(`${where}[${i}]: expected a ConjunctionOperator between criteria, got ${rt(e)}`);
    if (i % 2 === 0 && isConj) errs.push(`${where}[${i}]: ConjunctionOperator cannot be at an even position`);
  });
  return errs;
}

function ipErrors(e: Expr, where: string): string[] {
  const ips = e['ip_addresses'];
  if (!Array.isArray(ips) || ips.length === 0)
    return [`${where}: IPAddressExpression.ip_addresses must not be empty`];
  const errs: string[] = [];
  const families = new Set<number>();
  ips.forEach((ip, j) => {
    const fam = typeof ip === 'string' ? ipFamily(ip) : 0;
    if (fam === 0)
      errs.push(`${where}.ip_addresses[${j}]: "${String(ip)}" is not an IP address, CIDR or range`);
    else families.add(fam);
  });
  if (families.size > 1)
    errs.push(`${where}: IPv4 and IPv6 addresses cannot be mixed in one IPAddressExpression`);
  return errs;
}

function pathErrors(e: Expr, where: string): string[] {
  const paths = e['paths'];
  if (!Array.isArray(paths) || paths.length === 0)
    return [`${where}: PathExpression.paths must not be empty`];
  return paths
    .map((p, j) =>
      typeof p === 'string' && p.startsWith('/infra/')
        ? ''
        : `${where}.paths[${j}]: "${String(p)}" is not a policy path`,
    )
    .filter((s) => s !== '');
}

/** Validates the whole `expression` list of a group; `groupType` is the group's `group_type` array. */
export function validateGroupExpression(expression: unknown, groupType: unknown): string[] {
  if (expression === undefined) return [];
  if (!Array.isArray(expression)) return ['expression must be an array'];
  const list = expression as Expr[];
  if (list.length === 0) return [];
  const types = Array.isArray(groupType) ? (groupType as string[]) : [];
  const antrea = types.includes('ANTREA');
  const ipOnly = types.includes('IPAddress');
  const errs = alternationErrors(list, 'expression');

  let criteria = 0;
  list.forEach((e, i) => {
    const where = `expression[${i}]`;
    switch (rt(e)) {
      case 'Condition':
        criteria += 1;
        errs.push(...conditionErrors(e, where, antrea));
        if (NEVER_ALONE.has(String(e['member_type']))) {
          errs.push(
            `${where}: a ${String(e['member_type'])} condition cannot be used alone; combine it in a NestedExpression`,
          );
        }
        break;
      case 'NestedExpression':
        criteria += 1;
        errs.push(...nestedErrors(e, where, antrea));
        break;
      case 'IPAddressExpression':
        errs.push(...ipErrors(e, where));
        break;
      case 'PathExpression':
        errs.push(...pathErrors(e, where));
        break;
      case 'MACAddressExpression':
        if (!Array.isArray(e['mac_addresses']) || (e['mac_addresses'] as unknown[]).length === 0) {
          errs.push(`${where}: MACAddressExpression.mac_addresses must not be empty`);
        }
        break;
      case 'ExternalIDExpression':
        if (!Array.isArray(e['external_ids']) || (e['external_ids'] as unknown[]).length === 0) {
          errs.push(`${where}: ExternalIDExpression.external_ids must not be empty`);
        }
        break;
      case 'ConjunctionOperator':
        break;
      default:
        break;
    }
    if (
      antrea &&
      !['Condition', 'NestedExpression', 'ConjunctionOperator', 'IPAddressExpression'].includes(rt(e))
    ) {
      errs.push(`${where}: ${rt(e)} is not supported in an ANTREA group`);
    }
    if (ipOnly && !['IPAddressExpression', 'ConjunctionOperator'].includes(rt(e))) {
      errs.push(`${where}: group_type IPAddress allows only IPAddressExpression`);
    }
  });
  const conditionCount = list.reduce(
    (n, e) =>
      n +
      (rt(e) === 'Condition'
        ? 1
        : rt(e) === 'NestedExpression' && Array.isArray(e['expressions'])
          ? (e['expressions'] as Expr[]).filter((x) => rt(x) === 'Condition').length
          : 0),
    0,
  );
  if (conditionCount > MAX_CONDITIONS) {
    errs.push(`expression: at most ${MAX_CONDITIONS} conditions per group, got ${conditionCount}`);
  }
  if (criteria > MAX_CRITERIA) {
    errs.push(
      `expression: at most ${MAX_CRITERIA} Condition/NestedExpression criteria are allowed, got ${criteria}`,
    );
  }

  // Combination rules around each conjunction.
  for (let i = 1; i < list.length - 1; i += 2) {
    const op = list[i]?.['conjunction_operator'];
    const left = list[i - 1];
    const right = list[i + 1];
    if (op === 'AND' && (OR_ONLY.has(rt(left)) || OR_ONLY.has(rt(right)))) {
      errs.push(`expression[${i}]: ${rt(OR_ONLY.has(rt(left)) ? left : right)} can only be combined with OR`);
    }
    if (
      op === 'AND' &&
      rt(left) === 'Condition' &&
      rt(right) === 'Condition' &&
      left?.['member_type'] !== right?.['member_type']
    ) {
      errs.push(
        `expression[${i}]: Conditions with different member types (${String(left?.['member_type'])}, ${String(right?.['member_type'])}) cannot be ANDed at top level; use a NestedExpression`,
      );
    }
  }
  // Antrea: a Service criterion cannot be ORed with other criteria at top level.
  if (antrea && criteria > 1) {
    list.forEach((e, i) => {
      if (rt(e) === 'Condition' && e['member_type'] === 'Service') {
        errs.push(
          `expression[${i}]: a Service condition cannot be combined with other criteria in an ANTREA group`,
        );
      }
    });
  }
  return errs;
}

function nestedErrors(e: Expr, where: string, antrea: boolean): string[] {
  const inner = e['expressions'];
  if (!Array.isArray(inner) || inner.length === 0)
    return [`${where}: NestedExpression.expressions must not be empty`];
  const list = inner as Expr[];
  const errs = alternationErrors(list, `${where}.expressions`);
  const memberTypes = new Set<string>();
  list.forEach((x, j) => {
    const w = `${where}.expressions[${j}]`;
    const t = rt(x);
    if (t === 'ConjunctionOperator') {
      if (x['conjunction_operator'] !== 'AND')
        errs.push(`${w}: only AND is allowed inside a NestedExpression`);
    } else if (t === 'Condition') {
      errs.push(...conditionErrors(x, w, antrea));
      memberTypes.add(String(x['member_type']));
    } else {
      errs.push(`${w}: a NestedExpression may only contain Condition and ConjunctionOperator, got ${t}`);
    }
  });
  const conditions = list.filter((x) => rt(x) === 'Condition');
  if (conditions.length > 15) errs.push(`${where}: at most 15 conditions per criterion`);
  if (antrea && memberTypes.has('Service') && memberTypes.has('Pod')) {
    errs.push(
      `${where}: Service and Pod conditions cannot be mixed in one NestedExpression of an ANTREA group`,
    );
  }
  const onlyNeverAlone = [...memberTypes].every((m) => NEVER_ALONE.has(m));
  if (memberTypes.size > 0 && onlyNeverAlone && !antrea) {
    errs.push(
      `${where}: ${[...memberTypes].join('/')} conditions need a resource member type in the same criterion`,
    );
  }
  return errs;
}

/** Group paths referenced through PathExpression entries. */
export function expressionReferences(expression: unknown): string[] {
  if (!Array.isArray(expression)) return [];
  const out: string[] = [];
  for (const e of expression as Expr[]) {
    if (rt(e) === 'PathExpression' && Array.isArray(e['paths'])) {
      for (const p of e['paths'] as unknown[]) if (typeof p === 'string') out.push(p);
    }
  }
  return out;
}
