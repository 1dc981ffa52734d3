import type { V1ObjectMeta } from '@kubernetes/client-node';

// Shapes shared by the crd.antrea.io kinds. They describe the JSON on the wire (what kubectl and a
// watch return), so timestamps are RFC 3339 strings and byte slices are base64 strings.

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** metav1.LabelSelector: an empty selector selects everything, a missing one selects nothing. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A Namespace-scoped resource; Antrea requires both fields wherever it uses this type. */
export interface NamespacedName {
  name: string;
  namespace: string;
}

/** corev1.ObjectReference as embedded in the monitoring CRDs. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** corev1.SecretReference. */
export interface SecretReference {
  name?: string;
  namespace?: string;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** The condition layout used by NetworkPolicy, Group and SupportBundleCollection statuses. */
export interface CrdCondition<T extends string = string> {
  type: T;
  status: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/**
 * Common envelope of every crd.antrea.io object. `metadata` is client-node's type so these objects
 * can be passed to its generic object API without conversion.
 */
export interface CustomResource<Kind extends string, ApiVersion extends string = string> {
  apiVersion: ApiVersion;
  kind: Kind;
  metadata: V1ObjectMeta;
}
