import {
  type ClusterGroup,
  CRD_KINDS,
  type GroupSpec,
  type LabelSelector,
  type LabelSelectorRequirement,
} from '@antrea-ts/apis';
import { TranslationError } from '../../errors.js';
import {
  CREATED_FROM_ANNOTATION,
  CREATED_FROM_VALUE,
  K8S_TAG_SCOPE_PREFIX,
  NSX_PATH_ANNOTATION,
  PARENT_ANNOTATION,
} from '../../labels.js';
import type { NsxCondition, NsxExpression, NsxGroup } from '../../nsx/types.js';
import { ipEntryToCidrs } from './ip.js';
import { managedMeta } from './meta.js';

/** Label Kubernetes puts on every Namespace; how NSX "Namespace Name" conditions are expressed. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** A translated NSX group: the parent ClusterGroup (named by the NSX unique_id) and its children. */
export interface TranslatedGroup {
  name: string;
  path: string;
  objects: ClusterGroup[];
  /** Some member comes from IP addresses; such groups cannot be used in appliedTo. */
  hasIpBlocks: boolean;
}

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validLabelKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts.pop() ?? '';
  const prefix = parts[0];
  return (
    LABEL_NAME.test(name) && (prefix === undefined || (prefix.length <= 253 && LABEL_PREFIX.test(prefix)))
  );
}

function validLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && LABEL_NAME.test(v));
}

type Criterion = Exclude<NsxExpression, { resource_type: 'ConjunctionOperator' }>;

/** Splits an expression list into OR-ed terms of AND-ed criteria (AND binds tighter, as in NSX). */
function orTerms(list: NsxExpression[], path: string): Criterion[][] {
  const terms: Criterion[][] = [];
  let current: Criterion[] = [];
  list.forEach((e, i) => {
    const isConj = e.resource_type === 'ConjunctionOperator';
    if ((i % 2 === 1) !== isConj) {
      throw new TranslationError(
        'TRANSLATION_INVALID',
        path,
        `group ${path}: malformed expression list at index ${i}`,
      );
    }
    if (e.resource_type === 'ConjunctionOperator') {
      if (e.conjunction_operator === 'OR') {
        terms.push(current);
        current = [];
      }
      return;
    }
    current.push(e);
  });
  if (current.length > 0) terms.push(current);
  return terms;
}

function unsupported(path: string, what: string): TranslationError {
  return new TranslationError(
    'TRANSLATION_UNSUPPORTED',
    path,
    `group ${path}: ${what} is not supported for Antrea clusters`,
  );
}

/** "dis:k8s:<key>|<value>" tag condition -> a label requirement on <key>. */
function tagRequirement(c: NsxCondition, path: string): LabelSelectorRequirement {
  const value = c.value ?? '';
  const bar = value.indexOf('|');
  if (bar < 0 || bar === 0) {
    throw unsupported(path, `tag condition "${value}" without a scope (any-scope tags have no label key)`);
  }
  const scope = value.slice(0, bar);
  const tag = value.slice(bar + 1);
  if (!scope.startsWith(K8S_TAG_SCOPE_PREFIX)) {
    throw unsupported(
      path,
      `tag scope "${scope}" (only Kubernetes label scopes "${K8S_TAG_SCOPE_PREFIX}<key>")`,
    );
  }
  const key = scope.slice(K8S_TAG_SCOPE_PREFIX.length);
  if (!validLabelKey(key) || !validLabelValue(tag)) {
    throw new TranslationError(
      'TRANSLATION_INVALID',
      path,
      `group ${path}: "${value}" is not a valid Kubernetes label`,
    );
  }
  switch (c.operator) {
    case 'EQUALS':
      return tag === '' ? { key, operator: 'Exists' } : { key, operator: 'In', values: [tag] };
    case 'NOTEQUALS':
      return tag === '' ? { key, operator: 'DoesNotExist' } : { key, operator: 'NotIn', values: [tag] };
    default:
      throw unsupported(path, `operator ${c.operator} on tags`);
  }
}

/** Name condition -> requirement on `labelKey` (Namespace names through kubernetes.io/metadata.name). */
function nameRequirement(c: NsxCondition, labelKey: string, path: string): LabelSelectorRequirement {
  const value = c.value ?? '';
  const values =
    c.operator === 'IN' || c.operator === 'NOTIN' ? value.split(',').map((v) => v.trim()) : [value];
  if (values.some((v) => !validLabelValue(v) || v === '')) {
    throw new TranslationError('TRANSLATION_INVALID', path, `group ${path}: "${value}" is not a valid name`);
  }
  switch (c.operator) {
    case 'EQUALS':
    case 'IN':
      return { key: labelKey, operator: 'In', values };
    case 'NOTEQUALS':
    case 'NOTIN':
      return { key: labelKey, operator: 'NotIn', values };
    default:
      throw unsupported(path, `operator ${c.operator} on names`);
  }
}

function flattenConditions(term: Criterion[], path: string): NsxCondition[] {
  const out: NsxCondition[] = [];
  for (const c of term) {
    if (c.resource_type === 'Condition') out.push(c);
    else if (c.resource_type === 'NestedExpression') {
      (c.expressions ?? []).forEach((x, i) => {
        if (x.resource_type === 'ConjunctionOperator') {
          if (x.conjunction_operator !== 'AND') throw unsupported(path, 'OR inside a NestedExpression');
          if (i % 2 === 0)
            throw new TranslationError(
              'TRANSLATION_INVALID',
              path,
              `group ${path}: malformed NestedExpression`,
            );
        } else if (x.resource_type === 'Condition') out.push(x);
        else throw unsupported(path, `${x.resource_type} inside a NestedExpression`);
      });
    } else throw unsupported(path, `${c.resource_type} combined with AND`);
  }
  return out;
}

function selector(reqs: LabelSelectorRequirement[]): LabelSelector {
  return { matchExpressions: reqs };
}

/** One AND-term -> the spec of one ClusterGroup. */
function termSpec(term: Criterion[], path: string): { spec: GroupSpec; ip: boolean } {
  const ips = term.filter((c) => c.resource_type === 'IPAddressExpression');
  if (ips.length > 0) {
    if (term.length > 1) throw unsupported(path, 'IPAddressExpression combined with AND');
    const cidrs: string[] = [];
    for (const entry of (ips[0] as { ip_addresses?: string[] }).ip_addresses ?? []) {
      const c = ipEntryToCidrs(entry);
      if (!c)
        throw new TranslationError(
          'TRANSLATION_INVALID',
          path,
          `group ${path}: "${entry}" is not an IP address, CIDR or range`,
        );
      cidrs.push(...c);
    }
    return { spec: { ipBlocks: cidrs.map((cidr) => ({ cidr })) }, ip: true };
  }
  const pod: LabelSelectorRequirement[] = [];
  const ns: LabelSelectorRequirement[] = [];
  let serviceName: string | undefined;
  for (const c of flattenConditions(term, path)) {
    if (c.exclude !== undefined && c.exclude !== null)
      throw unsupported(path, 'Condition.exclude (negation)');
    if (c.scope_operator !== undefined && c.scope_operator !== 'EQUALS') {
      throw unsupported(path, `scope_operator ${c.scope_operator} (negation)`);
    }
    if (c.key !== 'Tag' && c.key !== 'Name') throw unsupported(path, `condition key ${c.key}`);
    switch (c.member_type) {
      case 'Pod':
        if (c.key === 'Name') throw unsupported(path, 'Pod Name condition (Pod names are not labels)');
        pod.push(tagRequirement(c, path));
        break;
      case 'Namespace':
        ns.push(c.key === 'Name' ? nameRequirement(c, NAMESPACE_NAME_LABEL, path) : tagRequirement(c, path));
        break;
      case 'Service':
        if (c.key !== 'Name' || c.operator !== 'EQUALS')
          throw unsupported(path, `Service ${c.key} ${c.operator} condition`);
        if (serviceName !== undefined) throw unsupported(path, 'two Service conditions in one criterion');
        serviceName = c.value ?? '';
        break;
      default:
        throw unsupported(path, `member type ${c.member_type}`);
    }
  }
  if (serviceName !== undefined) {
    const only = ns.length === 1 ? ns[0] : undefined;
    if (
      pod.length > 0 ||
      !only ||
      only.key !== NAMESPACE_NAME_LABEL ||
      only.operator !== 'In' ||
      only.values?.length !== 1
    ) {
      throw unsupported(path, 'a Service condition without exactly one "Namespace Name EQUALS" condition');
    }
    return {
      spec: { serviceReference: { name: serviceName, namespace: only.values[0] as string } },
      ip: false,
    };
  }
  const spec: GroupSpec = {};
  if (pod.length > 0) spec.podSelector = selector(pod);
  if (ns.length > 0) spec.namespaceSelector = selector(ns);
  return { spec, ip: false };
}

function clusterGroup(
  name: string,
  displayName: string,
  spec: GroupSpec,
  annotations: Record<string, string>,
): ClusterGroup {
  return {
    apiVersion: CRD_KINDS.ClusterGroup.apiVersion as 'crd.antrea.io/v1beta1',
    kind: 'ClusterGroup',
    metadata: managedMeta(name, displayName, {
      [CREATED_FROM_ANNOTATION]: CREATED_FROM_VALUE,
      ...annotations,
    }),
    spec,
  };
}

/**
 * NSX group -> ClusterGroups, shaped like the real adapter's output (research notes §3): the parent
 * is named by the group's unique_id and lists one child ClusterGroup "<uid>-<n>" per OR-ed
 * criterion; AND-ed conditions (top level or inside a NestedExpression) merge into one child's
 * selectors. Tag conditions "dis:k8s:<key>|<value>" select on label <key>; Namespace names select
 * on kubernetes.io/metadata.name; IP addresses become ipBlocks; Service + Namespace name becomes a
 * serviceReference. Anything else throws a TranslationError.
 */
export function translateGroup(group: NsxGroup): TranslatedGroup {
  const path = group.path;
  const uid = group.unique_id;
  if (!uid) throw new TranslationError('TRANSLATION_INVALID', path, `group ${path} has no unique_id`);
  if ((group.extended_expression ?? []).length > 0)
    throw unsupported(path, 'extended_expression (identity groups)');
  const displayName = group.display_name ?? group.id;
  const terms = orTerms(group.expression ?? [], path);
  const children: ClusterGroup[] = [];
  let hasIpBlocks = false;
  terms.forEach((term, i) => {
    const { spec, ip } = termSpec(term, path);
    hasIpBlocks ||= ip;
    children.push(clusterGroup(`${uid}-${i}`, `${displayName}-${i}`, spec, { [PARENT_ANNOTATION]: uid }));
  });
  const parent = clusterGroup(
    uid,
    displayName,
    { childGroups: children.map((c) => c.metadata.name as string) },
    {
      [NSX_PATH_ANNOTATION]: path,
    },
  );
  return { name: uid, path, objects: [parent, ...children], hasIpBlocks };
}
