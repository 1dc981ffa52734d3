import { BlockList, isIP } from 'node:net';
import type { NsxObject } from '../state/types.js';

/**
 * Effective pod members of a group computed from the container inventory (an approximation of what
 * NSX shows for Antrea groups; NSX itself gets membership from the clusters). Supports Condition on
 * Pod/Namespace/Service (keys Name, Tag), NestedExpression (AND), IPAddressExpression and AND/OR
 * conjunctions evaluated left to right. Other expression types match nothing.
 */

export interface InventoryView {
  pods: NsxObject[];
  projects: Map<string, NsxObject>;
  services: Map<string, NsxObject>;
}

type Expr = NsxObject;

function tags(o: NsxObject | undefined): { scope: string; tag: string }[] {
  const t = o?.['tags'];
  if (!Array.isArray(t)) return [];
  return t.map((x) => ({
    scope: String((x as NsxObject)['scope'] ?? ''),
    tag: String((x as NsxObject)['tag'] ?? ''),
  }));
}

function stringMatch(op: string, actual: string, value: string): boolean {
  switch (op) {
    case 'EQUALS':
      return actual === value;
    case 'NOTEQUALS':
      return actual !== value;
    case 'CONTAINS':
      return actual.includes(value);
    case 'STARTSWITH':
      return actual.startsWith(value);
    case 'ENDSWITH':
      return actual.endsWith(value);
    case 'IN':
      return value
        .split(',')
        .map((v) => v.trim())
        .includes(actual);
    case 'NOTIN':
      return !value
        .split(',')
        .map((v) => v.trim())
        .includes(actual);
    case 'MATCHES':
      if (value === '*') return true;
      try {
        return new RegExp(value).test(actual);
      } catch {
        return false;
      }
    default:
      return false;
  }
}

function tagMatch(c: Expr, o: NsxObject | undefined): boolean {
  const value = String(c['value'] ?? '');
  const [scope, tag] = value.includes('|') ? (value.split('|') as [string, string]) : ['', value];
  const scopeNeg = c['scope_operator'] === 'NOTEQUALS';
  const op = String(c['operator'] ?? 'EQUALS');
  const neg = op === 'NOTEQUALS';
  const found = tags(o).some((t) => {
    const scopeOk = scope === '' ? true : scopeNeg ? t.scope !== scope : t.scope === scope;
    if (!scopeOk) return false;
    if (tag === '') return true;
    return stringMatch(neg ? 'EQUALS' : op, t.tag, tag);
  });
  return neg ? !found : found;
}

function attrMatch(c: Expr, o: NsxObject | undefined): boolean {
  if (!o) return false;
  if (c['key'] === 'Tag') return tagMatch(c, o);
  if (c['key'] === 'Name')
    return stringMatch(String(c['operator']), String(o['display_name'] ?? ''), String(c['value'] ?? ''));
  return false;
}

function conditionMatch(c: Expr, pod: NsxObject, inv: InventoryView): boolean {
  switch (c['member_type']) {
    case 'Pod':
      return attrMatch(c, pod);
    case 'Namespace':
      return attrMatch(c, inv.projects.get(String(pod['container_project_id'])));
    case 'Service': {
      const ids = Array.isArray(pod['container_application_ids'])
        ? (pod['container_application_ids'] as string[])
        : [];
      return ids.some((id) => attrMatch(c, inv.services.get(id)));
    }
    default:
      return false;
  }
}

/** Pod IPs from origin_properties `ip` ("v4,v6") or `ip_address`. */
export function podIps(pod: NsxObject): string[] {
  const props = Array.isArray(pod['origin_properties']) ? (pod['origin_properties'] as NsxObject[]) : [];
  const out: string[] = [];
  for (const p of props) {
    if (p['key'] === 'ip' || p['key'] === 'ip_address') {
      for (const ip of String(p['value'] ?? '').split(',')) if (isIP(ip.trim())) out.push(ip.trim());
    }
  }
  return out;
}

function ipBlock(list: unknown): BlockList {
  const bl = new BlockList();
  for (const raw of Array.isArray(list) ? list : []) {
    const s = String(raw);
    const range = s.split('-');
    if (range.length === 2) {
      const fam = isIP(range[0] ?? '') === 6 ? 'ipv6' : 'ipv4';
      bl.addRange(range[0] ?? '', range[1] ?? '', fam);
      continue;
    }
    const [addr, prefix] = s.split('/');
    const fam = isIP(addr ?? '') === 6 ? 'ipv6' : 'ipv4';
    if (prefix !== undefined) bl.addSubnet(addr ?? '', Number(prefix), fam);
    else bl.addAddress(addr ?? '', fam);
  }
  return bl;
}

function criterionMatch(e: Expr, pod: NsxObject, inv: InventoryView): boolean {
  switch (e['resource_type']) {
    case 'Condition':
      return conditionMatch(e, pod, inv);
    case 'NestedExpression': {
      const inner = (Array.isArray(e['expressions']) ? e['expressions'] : []) as Expr[];
      const conds = inner.filter((x) => x['resource_type'] === 'Condition');
      return conds.length > 0 && conds.every((x) => conditionMatch(x, pod, inv));
    }
    case 'IPAddressExpression': {
      const bl = ipBlock(e['ip_addresses']);
      return podIps(pod).some((ip) => bl.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4'));
    }
    default:
      return false;
  }
}

/** Whether `pod` is a member of a group with this `expression`. */
export function podMatches(expression: unknown, pod: NsxObject, inv: InventoryView): boolean {
  const list = (Array.isArray(expression) ? expression : []) as Expr[];
  if (list.length === 0) return false;
  let result = criterionMatch(list[0] as Expr, pod, inv);
  for (let i = 1; i + 1 < list.length; i += 2) {
    const next = criterionMatch(list[i + 1] as Expr, pod, inv);
    result = list[i]?.['conjunction_operator'] === 'AND' ? result && next : result || next;
  }
  return result;
}
