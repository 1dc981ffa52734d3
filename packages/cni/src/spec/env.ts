import { CniError } from '../errors.js';
import { CniCode } from './error-codes.js';

export type CniCommand = 'ADD' | 'CHECK' | 'DEL' | 'GC' | 'STATUS' | 'VERSION';

/** The CNI_* parameters of one invocation (SPEC.md "Parameters"). */
export interface CniParams {
  readonly command: CniCommand;
  readonly containerId: string;
  readonly netns: string;
  readonly ifname: string;
  readonly args: string;
  readonly path: string;
  /** CNI_NETNS_OVERRIDE (libcni extension): skip the "CNI_NETNS is the plugin's own netns" check. */
  readonly netnsOverride: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

const COMMANDS = new Set<string>(['ADD', 'CHECK', 'DEL', 'GC', 'STATUS', 'VERSION']);

// Which variables each command requires, per SPEC.md. libcni's skel also demands CNI_PATH for
// ADD/CHECK/DEL, but the spec makes it optional there and this plugin never executes delegates.
const REQUIRED: Readonly<Record<CniCommand, readonly string[]>> = {
  ADD: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME'],
  CHECK: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME'],
  DEL: ['CNI_CONTAINERID', 'CNI_IFNAME'],
  GC: ['CNI_PATH'],
  STATUS: [],
  VERSION: [],
};

const VALID_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** libcni utils.ValidateContainerID: the runtime's id is used in file names and OVS external ids. */
export function validateContainerId(id: string): void {
  if (id === '') throw new CniError(CniCode.UNKNOWN_CONTAINER, 'missing containerID');
  if (!VALID_NAME.test(id)) {
    throw new CniError(CniCode.INVALID_ENVIRONMENT_VARIABLES, 'invalid characters in containerID', id);
  }
}

/** libcni utils.ValidateInterfaceName, i.e. the kernel's dev_valid_name(). */
export function validateInterfaceName(name: string): void {
  const bad = (msg: string, details = '') =>
    new CniError(CniCode.INVALID_ENVIRONMENT_VARIABLES, msg, details);
  if (name.length === 0) throw bad('interface name is empty');
  // The kernel limit is in bytes (IFNAMSIZ 16 including the NUL).
  if (Buffer.byteLength(name) > 15) {
    throw bad('interface name is too long', 'interface name should be less than 16 characters');
  }
  if (name === '.' || name === '..') throw bad('interface name is . or ..');
  if (/[/:\s]/u.test(name)) throw bad('interface name contains / or : or whitespace characters');
}

/**
 * Reads the CNI_* variables. Returns undefined when CNI_COMMAND is unset, which libcni treats as a
 * human running the binary (it prints an "about" line and exits 0). Throws CniError(4) for missing
 * or invalid variables, naming them as the spec requires.
 */
export function parseCniEnv(env: Env): CniParams | undefined {
  const command = env['CNI_COMMAND'] ?? '';
  if (command === '') return undefined;
  if (!COMMANDS.has(command)) {
    throw new CniError(CniCode.INVALID_ENVIRONMENT_VARIABLES, `unknown CNI_COMMAND: ${command}`);
  }
  const cmd = command as CniCommand;
  const missing = REQUIRED[cmd].filter((name) => (env[name] ?? '') === '');
  if (missing.length > 0) {
    throw new CniError(
      CniCode.INVALID_ENVIRONMENT_VARIABLES,
      `required env variables [${missing.join(',')}] missing`,
    );
  }
  const params: CniParams = {
    command: cmd,
    containerId: env['CNI_CONTAINERID'] ?? '',
    netns: env['CNI_NETNS'] ?? '',
    ifname: env['CNI_IFNAME'] ?? '',
    args: env['CNI_ARGS'] ?? '',
    path: env['CNI_PATH'] ?? '',
    netnsOverride: ['TRUE', '1'].includes((env['CNI_NETNS_OVERRIDE'] ?? '').toUpperCase()),
  };
  if (cmd === 'ADD' || cmd === 'CHECK' || cmd === 'DEL') {
    validateContainerId(params.containerId);
    validateInterfaceName(params.ifname);
  }
  return Object.freeze(params);
}
