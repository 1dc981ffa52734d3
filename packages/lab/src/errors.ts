/** Errors of the lab; `code` is stable, messages are not. Callers (the CLI, e2e) branch on `code`. */
export type LabErrorCode =
  /** `up` while a lab is already recorded in the state dir. */
  | 'LAB_ALREADY_UP'
  /** A command needs a running lab and the state dir has none. */
  | 'LAB_NOT_UP'
  /** A component did not become healthy in time (the message names its log). */
  | 'LAB_START_TIMEOUT'
  /** A binary the lab runs is missing (run hack/install-deps.sh, or build the project). */
  | 'LAB_MISSING_BINARY'
  /** A CNI plugin of the chain failed (the message carries the plugin's error JSON). */
  | 'LAB_CNI_FAILED'
  /** No such Node or Pod in the lab. */
  | 'LAB_NOT_FOUND'
  /** The object exists already (Pod, Node). */
  | 'LAB_EXISTS'
  /** Bad arguments (Pod reference, port list, label). */
  | 'LAB_INVALID_ARGUMENT'
  /** The lab's Pod servers did not come up. */
  | 'LAB_SERVER_FAILED';

export class LabError extends Error {
  readonly code: LabErrorCode;

  constructor(code: LabErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LabError';
    this.code = code;
  }
}
