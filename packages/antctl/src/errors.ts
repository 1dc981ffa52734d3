// Every failure antctl reports carries a fixed code (callers and tests branch on it) and an exit
// status. The message is written for the person at the terminal: it says what failed and, where we
// can tell, what to run next.

export const ANTCTL_ERROR_CODES = {
  /** Bad flags or arguments; nothing was sent to a server. */
  ANTCTL_USAGE: 2,
  /** No usable kubeconfig (missing file, bad YAML, no current context). */
  ANTCTL_KUBECONFIG: 1,
  /** The server could not be reached at all (connection refused, DNS, TLS, timeout). */
  ANTCTL_UNREACHABLE: 1,
  /** The server answered with an error status. */
  ANTCTL_SERVER_ERROR: 1,
  /** The server answered 404 for a named object. */
  ANTCTL_NOT_FOUND: 1,
  /** The server answered but the body is not what the command expects. */
  ANTCTL_BAD_RESPONSE: 1,
  /** The command does not exist in the selected mode. */
  ANTCTL_UNSUPPORTED_MODE: 2,
  /** A Traceflow or support bundle did not finish in time. */
  ANTCTL_TIMEOUT: 1,
  /** Writing local files (support bundles) failed. */
  ANTCTL_LOCAL_IO: 1,
} as const;

export type AntctlErrorCode = keyof typeof ANTCTL_ERROR_CODES;

const MARK = Symbol.for('antrea-ts.antctl.error');

export class AntctlError extends Error {
  readonly code: AntctlErrorCode;
  /** HTTP status when the server answered. */
  readonly status: number | undefined;

  constructor(code: AntctlErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AntctlError';
    this.code = code;
    this.status = options.status;
    Object.defineProperty(this, MARK, { value: true });
  }

  get exitCode(): number {
    return ANTCTL_ERROR_CODES[this.code];
  }

  static is(value: unknown): value is AntctlError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}
