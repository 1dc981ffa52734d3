import type { V1ObjectMeta } from '@kubernetes/client-node';
import { DISPLAY_NAME_ANNOTATION, MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../labels.js';

/** Metadata of every object the CCP adapter writes: the managed-by label and the NSX display name. */
export function managedMeta(
  name: string,
  displayName: string,
  annotations: Record<string, string> = {},
): V1ObjectMeta {
  return {
    name,
    labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
    annotations: { [DISPLAY_NAME_ANNOTATION]: displayName, ...annotations },
  };
}
