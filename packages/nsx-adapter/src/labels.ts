/**
 * Label and annotation keys on the objects the CCP adapter writes. The keys are the ones the real
 * adapter uses (research notes §3) so tooling that looks for NSX-managed objects finds ours.
 */
export const CCP_PREFIX = 'ccp-adapter.antrea.tanzu.vmware.com';
export const MANAGED_BY_LABEL = `${CCP_PREFIX}/managedBy`;
export const MANAGED_BY_VALUE = 'ccp-adapter';
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;
export const DISPLAY_NAME_ANNOTATION = `${CCP_PREFIX}/display-name`;
export const CREATED_FROM_ANNOTATION = `${CCP_PREFIX}/createdFrom`;
/** The real adapter writes "nestdbGroupMsg"; ours come from the Policy API shapes. */
export const CREATED_FROM_VALUE = 'nsxPolicyGroup';
export const PARENT_ANNOTATION = `${CCP_PREFIX}/parent`;
/** Not in the real adapter: the NSX policy path and _revision, needed to report realization. */
export const NSX_PATH_ANNOTATION = `${CCP_PREFIX}/nsx-path`;
export const NSX_REVISION_ANNOTATION = `${CCP_PREFIX}/nsx-revision`;

/** Scope prefix of Kubernetes labels reported as NSX tags (research notes §2.4). */
export const K8S_TAG_SCOPE_PREFIX = 'dis:k8s:';
