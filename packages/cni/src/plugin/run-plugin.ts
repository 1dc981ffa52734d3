import type { CniAgent } from '../client/agent-client.js';
import { CniError, isAgentRpcError, isCniError } from '../errors.js';
import { type CniParams, type Env, parseCniEnv } from '../spec/env.js';
import { CniCode } from '../spec/error-codes.js';
import { type NetConf, parseNetConf, peekCniVersion } from '../spec/net-conf.js';
import { CURRENT_CNI_VERSION, SUPPORTED_CNI_VERSIONS, versionAtLeast } from '../spec/versions.js';

/** How the plugin reaches the agent. Only touched by commands that need it, so VERSION stays cheap. */
export interface AgentConnector {
  connect(): Promise<CniAgent>;
  /** Resolves when the agent's CNI socket accepts connections; rejects otherwise. */
  probe(): Promise<void>;
}

export interface PluginInput {
  readonly env: Env;
  readonly readStdin: () => Promise<Uint8Array>;
  readonly agent: AgentConnector;
  /** Is `path` the network namespace this process runs in? (ADD/DEL into our own netns is refused.) */
  readonly isOwnNetns: (path: string) => Promise<boolean>;
  /** Printed on stderr when run without CNI_COMMAND, as libcni plugins do. */
  readonly about: string;
  /**
   * DEL when the agent's socket cannot be connected: succeed (true) or report "try again later"
   * (false, what Antrea's Go plugin does). A slow agent (deadline) is always "try again later".
   */
  readonly bestEffortDel: boolean;
}

export interface PluginOutcome {
  readonly exitCode: number;
  /** What goes to stdout: the CNI result, the VERSION object or the error object. */
  readonly stdout: Uint8Array | string;
  /** Unstructured diagnostics (the spec allows logs on stderr). */
  readonly stderr: string;
}

export interface CniErrorResult {
  cniVersion: string;
  code: number;
  msg: string;
  details?: string;
}

export function formatCniError(err: CniError, cniVersion: string): string {
  const out: CniErrorResult = { cniVersion, code: err.cniCode, msg: err.msg };
  if (err.details !== '') out.details = err.details;
  return `${JSON.stringify(out, null, 4)}\n`;
}

const EMPTY = new Uint8Array(0);

/**
 * One invocation of the plugin, as libcni's skel.PluginMainFuncs would run Antrea's Go plugin:
 * validate env and stdin, answer VERSION/GC locally, forward ADD/CHECK/DEL to the agent. Never throws;
 * every failure becomes a CNI error result and exit code 1.
 */
export async function runPlugin(input: PluginInput): Promise<PluginOutcome> {
  let stdin: Uint8Array = EMPTY;
  try {
    const params = parseCniEnv(input.env);
    if (params === undefined) {
      return {
        exitCode: 0,
        stdout: '',
        stderr: `${input.about}\nCNI protocol versions supported: ${SUPPORTED_CNI_VERSIONS.join(', ')}\n`,
      };
    }
    try {
      stdin = await input.readStdin();
    } catch (err) {
      throw new CniError(CniCode.IO_FAILURE, `error reading from stdin: ${(err as Error).message}`, '', {
        cause: err,
      });
    }
    if (params.command === 'VERSION') return versionOutcome(stdin);
    const conf = parseNetConf(stdin);
    return await dispatch(params, conf, input);
  } catch (err) {
    const cniErr =
      isCniError(err) && err.code === 'CNI_ERROR'
        ? (err as CniError)
        : new CniError(CniCode.INTERNAL, (err as Error)?.message ?? String(err), '', { cause: err });
    return {
      exitCode: 1,
      stdout: formatCniError(cniErr, peekCniVersion(stdin) ?? CURRENT_CNI_VERSION),
      stderr: '',
    };
  }
}

/**
 * VERSION: the spec says to echo the input's cniVersion; libcni always answers its own current
 * version. Echo a supported input version, else answer the current one, so both readings hold.
 */
function versionOutcome(stdin: Uint8Array): PluginOutcome {
  const cniVersion = peekCniVersion(stdin) ?? CURRENT_CNI_VERSION;
  return {
    exitCode: 0,
    stdout: `${JSON.stringify({ cniVersion, supportedVersions: SUPPORTED_CNI_VERSIONS })}\n`,
    stderr: '',
  };
}

function requireVersion(conf: NetConf, min: string, command: string): void {
  if (!versionAtLeast(conf.cniVersion, min)) {
    throw new CniError(CniCode.INCOMPATIBLE_CNI_VERSION, `config version does not allow ${command}`);
  }
}

async function dispatch(params: CniParams, conf: NetConf, input: PluginInput): Promise<PluginOutcome> {
  switch (params.command) {
    case 'GC':
      // Antrea has no GC RPC: the agent garbage-collects interfaces and IPs of vanished Pods itself
      // when it reconciles, so the plugin (like Antrea's) accepts GC and does nothing.
      requireVersion(conf, '1.1.0', 'GC');
      return { exitCode: 0, stdout: '', stderr: '' };
    case 'STATUS':
      requireVersion(conf, '1.1.0', 'STATUS');
      try {
        await input.agent.probe();
      } catch (err) {
        throw new CniError(
          CniCode.PLUGIN_NOT_AVAILABLE,
          'antrea-agent is not available',
          (err as Error).message,
          {
            cause: err,
          },
        );
      }
      return { exitCode: 0, stdout: '', stderr: '' };
    case 'CHECK':
      requireVersion(conf, '0.4.0', 'CHECK');
      break;
    case 'ADD':
    case 'DEL':
      if (!params.netnsOverride && params.netns !== '' && (await input.isOwnNetns(params.netns))) {
        throw new CniError(
          CniCode.INVALID_NETNS,
          "plugin's netns and netns from CNI_NETNS should not be the same",
        );
      }
      break;
  }
  const command = params.command as 'ADD' | 'CHECK' | 'DEL';
  const args = {
    containerId: params.containerId,
    netns: params.netns,
    ifname: params.ifname,
    args: params.args,
    path: params.path,
    networkConfiguration: conf.raw,
  };
  try {
    const agent = await input.agent.connect();
    const result = await agent.command(command, args);
    return { exitCode: 0, stdout: result, stderr: '' };
  } catch (err) {
    if (command === 'DEL' && input.bestEffortDel && isAgentDown(err)) {
      // SPEC.md: DEL is best effort. With no agent serving, nothing on this Node can release the
      // Pod's port or IP now; the agent reconciles both against the Pods that exist when it starts.
      return {
        exitCode: 0,
        stdout: '',
        stderr: `antrea-cni: DEL of ${params.containerId} skipped, antrea-agent is not serving (${(err as Error).message}); the agent cleans up on start\n`,
      };
    }
    throw err;
  }
}

/** The call failed because nothing accepts connections on the socket (not: the agent was slow). */
function isAgentDown(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause;
  return isAgentRpcError(cause) && cause.connectFailed;
}
