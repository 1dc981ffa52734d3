export {
  BenchReport,
  type BenchReportOptions,
  type BenchRow,
  type BenchTableFormat,
  formatBenchMatrix,
  formatBenchTable,
} from './bench-report.js';
export { percentile } from './bench-report-stats.js';
export { HarnessError, type HarnessErrorCode } from './errors.js';
export { inNetns, type PollOptions, poll, type RunOptions, run, tryRun, waitFor } from './exec.js';
export { type ExtensionServerSetup, startExtensionServerSetup } from './extension-server-setup.js';
export { httpsStatus } from './https-status.js';
export {
  etcdCommand,
  type KubeApiServerSetup,
  type KubeCluster,
  kubeApiServerArgs,
  kubeControllerManagerArgs,
  SERVICE_ACCOUNT_ISSUER,
  SERVICE_CLUSTER_IP_RANGE,
  type StartKubeOptions,
  startKube,
} from './kube.js';
export * from './kube-objects.js';
export { createKubePki, type KubePki } from './kube-pki.js';
export { type KubeconfigOptions, kubeconfigYaml, listenAsKubeApi } from './kubeconfig.js';
export { ManagedProcess, type ManagedProcessOptions } from './managed-process.js';
export {
  createLinuxBridge,
  createNetns,
  createVethPair,
  disableTxChecksumOffload,
  NET_PREFIX,
  type Netns,
  uniqueTag,
  type VethEnd,
} from './netns.js';
export { createNetnsNode, type NetnsNode, setUpTransportBridge, TRANSPORT_BRIDGE } from './netns-node.js';
export { type OvsInstance, type StartOvsOptions, startOvs } from './ovs.js';
export {
  netdevBridgeArgs,
  type OvsRunDirLayout,
  ovsRunDirLayout,
  VSWITCH_SCHEMA,
} from './ovs-commands.js';
export { cachedBinDir } from './paths.js';
export { type CertFiles, type CertRequest, TestPki } from './pki.js';
export * from './pod-bed.js';
export { freePort } from './ports.js';
export { prometheusScrape } from './prometheus-scrape.js';
export { serviceWithEndpoints } from './service-endpoints.js';
export { type SshdInstance, type StartSshdOptions, startSshd, userExists } from './sshd.js';
export { makeTempDir, TEMP_PREFIX, type TempDir } from './temp-dir.js';
export { createUnderlay, type Underlay } from './underlay.js';
