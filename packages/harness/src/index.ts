export { HarnessError, type HarnessErrorCode } from './errors.js';
export { inNetns, type RunOptions, run, tryRun, waitFor } from './exec.js';
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
export { type OvsInstance, type StartOvsOptions, startOvs } from './ovs.js';
export { makeTempDir, TEMP_PREFIX, type TempDir } from './temp-dir.js';
