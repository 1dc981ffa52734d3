import { type AnyLabelSelector, compileSelector, type Selector, type SelectorCache } from '@antrea-ts/apis';

/**
 * Antrea's GroupSelector (pkg/controller/types/group.go): which Pods (or Nodes) a group selects.
 * `namespace` and `namespaceSelector` are exclusive. Neither set means "all Namespaces".
 */
export interface GroupSelector {
  readonly normalizedName: string;
  readonly namespace: string;
  readonly podSelector: Selector | undefined;
  readonly namespaceSelector: Selector | undefined;
  readonly externalEntitySelector: Selector | undefined;
  readonly nodeSelector: Selector | undefined;
}

/**
 * GenerateNormalizedName: the parts present, sorted, joined by " And ". The namespace part is
 * dropped when a namespaceSelector is set.
 */
export function generateNormalizedName(
  namespace: string,
  podSelector: Selector | undefined,
  namespaceSelector: Selector | undefined,
  eeSelector: Selector | undefined,
  nodeSelector: Selector | undefined,
): string {
  const parts: string[] = [];
  if (namespaceSelector) parts.push(`namespaceSelector=${namespaceSelector.text}`);
  else if (namespace !== '') parts.push(`namespace=${namespace}`);
  if (podSelector) parts.push(`podSelector=${podSelector.text}`);
  if (eeSelector) parts.push(`eeSelector=${eeSelector.text}`);
  if (nodeSelector) parts.push(`nodeSelector=${nodeSelector.text}`);
  // Go's sort.Strings compares bytes; JS default sort compares UTF-16 units, which agrees for the
  // ASCII prefixes that decide the order here.
  parts.sort();
  return parts.join(' And ');
}

/**
 * NewGroupSelector: a missing namespaceSelector pins the selector to `namespace` (the policy's
 * Namespace); a present one, even `{}`, selects across Namespaces.
 */
export function newGroupSelector(
  namespace: string,
  podSelector: AnyLabelSelector | undefined | null,
  nsSelector: AnyLabelSelector | undefined | null,
  eeSelector: AnyLabelSelector | undefined | null,
  nodeSelector: AnyLabelSelector | undefined | null,
  cache?: SelectorCache,
): GroupSelector {
  const pod = podSelector ? compileSelector(podSelector, cache) : undefined;
  const ee = eeSelector ? compileSelector(eeSelector, cache) : undefined;
  const ns = nsSelector ? compileSelector(nsSelector, cache) : undefined;
  const node = nodeSelector ? compileSelector(nodeSelector, cache) : undefined;
  const fixedNamespace = ns ? '' : namespace;
  return {
    normalizedName: generateNormalizedName(fixedNamespace, pod, ns, ee, node),
    namespace: fixedNamespace,
    podSelector: pod,
    namespaceSelector: ns,
    externalEntitySelector: ee,
    nodeSelector: node,
  };
}
