import { arr, type JSONSchemaProps, obj, str, strEnum } from './openapi.js';

/** Kubernetes label value syntax (63-character limit aside). */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

export interface LabelSelectorOptions {
  /** Check matchExpressions values against LABEL_VALUE_PATTERN. */
  checkValues?: boolean;
  /**
   * Check matchLabels values too. When false, matchLabels is kept as-is without validation, which
   * is what Antrea's Group and SupportBundleCollection CRDs do; we keep that looseness so objects
   * Antrea accepts are accepted here.
   */
  checkMatchLabels?: boolean;
}

export function labelSelector(opts: LabelSelectorOptions = {}): JSONSchemaProps {
  const checkValues = opts.checkValues ?? true;
  const checkMatchLabels = opts.checkMatchLabels ?? true;
  const value = checkValues ? str({ pattern: LABEL_VALUE_PATTERN }) : str();
  return obj({
    matchExpressions: arr(
      obj({
        key: str(),
        operator: strEnum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
        values: arr(value),
      }),
    ),
    matchLabels: checkMatchLabels
      ? { type: 'object', additionalProperties: str({ pattern: LABEL_VALUE_PATTERN }) }
      : { 'x-kubernetes-preserve-unknown-fields': true },
  });
}

/** name + namespace, both required (ServiceAccount and Service references in policies). */
export const namespacedName = (): JSONSchemaProps =>
  obj({ name: str(), namespace: str() }, { required: ['name', 'namespace'] });

/** The metav1.Condition-like layout of policy, group and support bundle statuses. */
export const conditions = (): JSONSchemaProps =>
  arr(
    obj({
      type: str(),
      status: str(),
      lastTransitionTime: str(),
      reason: str(),
      message: str(),
    }),
  );

/** corev1.ObjectReference. */
export const objectReference = (): JSONSchemaProps =>
  obj({
    kind: str(),
    namespace: str(),
    name: str(),
    uid: str(),
    apiVersion: str(),
    resourceVersion: str(),
    fieldPath: str(),
  });

/** The Age column every Antrea CRD shows. */
export const ageColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;
