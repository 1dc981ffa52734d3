import type { CrdGroup, CrdGroupSpec } from '../inputs.js';
import { ipBlockError } from './ip-block.js';
import { checkSelectorsLabels } from './labels.js';
import { ALLOWED, deny, numFieldsSet, type ValidationResult } from './result.js';

export interface GroupValidationContext {
  /** Groups of the same kind (ClusterGroups, or Groups of the same Namespace), by name. */
  get(name: string): CrdGroup | undefined;
  /** Names of the Groups that list `name` as a child. */
  parentsOf(name: string): string[];
}

function specCheck(s: CrdGroupSpec, clusterScoped: boolean): string | undefined {
  const msg = clusterScoped
    ? 'At most one of podSelector, nodeSelector, externalEntitySelector, serviceReference, ipBlock, ipBlocks or childGroups can be set for a ClusterGroup'
    : 'At most one of podSelector, externalEntitySelector, serviceReference, ipBlocks or childGroups can be set for a Group';
  const n = numFieldsSet(s);
  if (n > 2) return msg;
  // Two fields are only valid as namespaceSelector plus podSelector or externalEntitySelector.
  if (n === 2 && (!s.namespaceSelector || (!s.podSelector && !s.externalEntitySelector))) return msg;
  const l = checkSelectorsLabels(s.podSelector, s.namespaceSelector, s.externalEntitySelector);
  if (l) return l;
  for (const b of s.ipBlocks ?? []) {
    const e = ipBlockError(b);
    if (e) return e;
  }
  return undefined;
}

/** Validates a ClusterGroup (no namespace) or Group, including the one-level childGroups rule. */
export function validateGroup(g: CrdGroup, ctx: GroupValidationContext): ValidationResult {
  const clusterScoped = !g.metadata.namespace;
  const kind = clusterScoped ? 'ClusterGroup' : 'Group';
  const display = clusterScoped ? (g.metadata.name ?? '') : `${g.metadata.namespace}/${g.metadata.name}`;
  const specErr = specCheck(g.spec, clusterScoped);
  if (specErr) return deny(specErr);
  const children = g.spec.childGroups ?? [];
  if (children.length === 0) return ALLOWED;
  if (children.includes(g.metadata.name ?? ''))
    return deny(`cannot set ${kind} ${display} as its own childGroup`);
  const parents = ctx.parentsOf(g.metadata.name ?? '');
  if (parents.length > 0)
    return deny(`cannot set childGroups for ${kind} ${display}, who has ${parents.length} parents`);
  for (const c of children) {
    const child = ctx.get(c);
    const n = child?.spec.childGroups?.length ?? 0;
    if (n > 0) {
      const childDisplay = clusterScoped ? c : `${g.metadata.namespace}/${c}`;
      return deny(`cannot set ${kind} ${childDisplay} as childGroup, who has ${n} childGroups itself`);
    }
  }
  return ALLOWED;
}
