import { CniCode, CniError, DEFAULT_CNI_SOCKET_PATH, type Env } from '@antrea-ts/cni/plugin';

export interface CniPluginOptions {
  /** The agent's CNI socket. */
  readonly socketPath: string;
  /** Deadline of one ADD/CHECK/DEL call to the agent. */
  readonly timeoutMs: number;
  /** DEL when nothing listens on the socket: succeed (spec's best effort) or fail with code 11. */
  readonly bestEffortDel: boolean;
  /** gRPC client implementation: the light node:http2 one, or @grpc/grpc-js. */
  readonly transport: 'h2' | 'grpc-js';
}

// Below kubelet's default --runtime-request-timeout (2m), so that a stuck agent yields a CNI "try
// again later" error in the Pod's events rather than the runtime killing the plugin mid-call.
const DEFAULT_TIMEOUT_MS = 100_000;

/**
 * The plugin's own settings. The runtime passes its environment through to plugins, so these are
 * environment variables; they exist for tests and unusual installs, and clusters use the defaults.
 *   ANTREA_CNI_SOCKET            agent socket (default /var/run/antrea/cni.sock)
 *   ANTREA_CNI_TIMEOUT_MS        per-command deadline in ms (default 100000)
 *   ANTREA_CNI_DEL_AGENT_DOWN    "succeed" (default) or "fail" (Antrea's Go plugin: code 11)
 *   ANTREA_CNI_TRANSPORT         "h2" (default) or "grpc-js" (slower start; for comparison)
 */
export function loadOptions(env: Env): CniPluginOptions {
  const bad = (name: string, value: string, want: string) =>
    new CniError(CniCode.INVALID_ENVIRONMENT_VARIABLES, `invalid ${name}`, `"${value}": ${want}`);
  const socketPath = env['ANTREA_CNI_SOCKET'] || DEFAULT_CNI_SOCKET_PATH;
  const rawTimeout = env['ANTREA_CNI_TIMEOUT_MS'] ?? '';
  const timeoutMs = rawTimeout === '' ? DEFAULT_TIMEOUT_MS : Number(rawTimeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw bad('ANTREA_CNI_TIMEOUT_MS', rawTimeout, 'want a positive integer number of milliseconds');
  }
  const delPolicy = env['ANTREA_CNI_DEL_AGENT_DOWN'] || 'succeed';
  if (delPolicy !== 'succeed' && delPolicy !== 'fail') {
    throw bad('ANTREA_CNI_DEL_AGENT_DOWN', delPolicy, 'want "succeed" or "fail"');
  }
  const transport = env['ANTREA_CNI_TRANSPORT'] || 'h2';
  if (transport !== 'h2' && transport !== 'grpc-js') {
    throw bad('ANTREA_CNI_TRANSPORT', transport, 'want "h2" or "grpc-js"');
  }
  return Object.freeze({ socketPath, timeoutMs, bestEffortDel: delPolicy === 'succeed', transport });
}
