// SupportBundleCollection's pure parts (Antrea pkg/controller/supportbundlecollection): which
// Nodes a collection targets, and its status from the agents' reports.
import type { BundleExternalNodes, BundleNodes, SupportBundleCollectionStatus } from '@antrea-ts/apis';
import { compileSelector, type Labels } from '@antrea-ts/apis';

export interface NamedLabels {
  readonly name: string;
  readonly labels: Labels;
}

/**
 * Nodes picked by `spec.nodes`: by names and by selector (either matches); both empty picks
 * every Node. Names of Nodes that do not exist are dropped.
 */
export function selectNodes(spec: BundleNodes | undefined, nodes: readonly NamedLabels[]): string[] {
  if (!spec) return [];
  const names = new Set(spec.nodeNames ?? []);
  const selector = spec.nodeSelector ? compileSelector(spec.nodeSelector) : undefined;
  const all = names.size === 0 && !selector;
  return nodes
    .filter((n) => all || names.has(n.name) || (selector?.matches(n.labels) ?? false))
    .map((n) => n.name)
    .sort();
}

/** ExternalNodes picked by `spec.externalNodes` (same rules, within its Namespace), as "ns/name". */
export function selectExternalNodes(
  spec: BundleExternalNodes | undefined,
  externalNodes: readonly (NamedLabels & { namespace: string })[],
): string[] {
  if (!spec) return [];
  return selectNodes(
    spec,
    externalNodes.filter((e) => e.namespace === spec.namespace),
  ).map((n) => `${spec.namespace}/${n}`);
}

export interface NodeReport {
  readonly completed: boolean;
  readonly error?: string;
}

/**
 * The CR status from the reports so far: desiredNodes/collectedNodes, and Antrea's conditions —
 * Started once there are targets, BundleCollected once one Node uploaded, CollectionFailure
 * while any Node failed (its message names them), Completed once every Node reported.
 */
export function collectionStatus(
  desired: readonly string[],
  reports: ReadonlyMap<string, NodeReport>,
  now: Date,
  previous?: SupportBundleCollectionStatus,
): SupportBundleCollectionStatus {
  const at = `${now.toISOString().slice(0, 19)}Z`;
  const collected = desired.filter((n) => reports.get(n)?.completed).length;
  const failed = desired.filter((n) => reports.has(n) && !reports.get(n)?.completed);
  const done = desired.length > 0 && desired.every((n) => reports.has(n));
  const keep = (type: string, status: 'True' | 'False', reason = '', message = '') => {
    const old = previous?.conditions?.find((c) => c.type === type);
    return {
      type,
      status,
      lastTransitionTime: old && old.status === status ? old.lastTransitionTime : at,
      reason,
      message,
    };
  };
  const conditions = [
    keep('Started', desired.length > 0 ? 'True' : 'False'),
    keep('BundleCollected', collected > 0 ? 'True' : 'False'),
    keep(
      'CollectionFailure',
      failed.length > 0 ? 'True' : 'False',
      failed.length > 0 ? 'CollectionFailure' : '',
      failed.map((n) => `${n}: ${reports.get(n)?.error ?? 'failed'}`).join('; '),
    ),
    keep('Completed', done ? 'True' : 'False'),
  ];
  return {
    collectedNodes: collected,
    desiredNodes: desired.length,
    conditions: conditions as SupportBundleCollectionStatus['conditions'],
  };
}
