// Only the CRD factories and schema types leave this folder; the builders stay internal.
export { LABEL_VALUE_PATTERN } from './common.js';
export { egressCrd, externalIPPoolCrd } from './egress.js';
export { externalEntityCrd } from './external-entity.js';
export { clusterGroupCrd, groupCrd } from './group.js';
export { antreaAgentInfoCrd, antreaControllerInfoCrd } from './monitoring.js';
export { antreaNetworkPolicyCrd, clusterNetworkPolicyCrd, LOG_LABEL_PATTERN } from './network-policy.js';
export type { CrdVersion, CustomResourceDefinition, JSONSchemaProps, PrinterColumn } from './openapi.js';
export { PACKET_CAPTURE_SFTP_URL_PATTERN, packetCaptureCrd } from './packet-capture.js';
export { supportBundleCollectionCrd } from './support-bundle-collection.js';
export { tierCrd } from './tier.js';
export { traceflowCrd } from './traceflow.js';
export { trafficControlCrd } from './traffic-control.js';
