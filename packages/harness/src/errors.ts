/** Errors raised while starting or driving test infrastructure; `code` is stable, messages are not. */
export type HarnessErrorCode =
  | 'HARNESS_COMMAND_FAILED'
  | 'HARNESS_START_TIMEOUT'
  | 'HARNESS_PROCESS_EXITED'
  | 'HARNESS_MISSING_BINARY';

export class HarnessError extends Error {
  readonly code: HarnessErrorCode;

  constructor(code: HarnessErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HarnessError';
    this.code = code;
  }
}
