export { type CniRuntime, cniAdd, cniDel } from './cni-chain.js';
export {
  connectivityMatrix,
  DEMO_NAMESPACES,
  type DemoCell,
  deployDemo,
  formatMatrix,
  type MatrixReport,
} from './demo.js';
export { LabError, type LabErrorCode } from './errors.js';
export {
  type ComponentStatus,
  type DownReport,
  gatewayIp,
  Lab,
  type LabArtifacts,
  type LabOptions,
  type LabStatus,
  type LabUpOptions,
  type PodCreateSpec,
  podCidrFor,
  repoArtifacts,
} from './lab.js';
export { DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_COUNT, LabLayout } from './layout.js';
export { controllerServiceObjects, manifestObjects, rbacObjects } from './manifests.js';
export { parseLabels, parsePodRef, parsePorts } from './parse.js';
export { type ProbeResult, type ProbeTarget, type ProbeVerdict, targetArg } from './probe.js';
export type { LabState, NodeRecord, PodPort, PodRecord, ProcessRecord } from './state.js';
