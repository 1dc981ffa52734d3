// Every error the controller package throws carries a fixed code; callers branch on `code`.

export const ErrorCodes = {
  INVALID_CIDR: 'CONTROLLER_INVALID_CIDR',
  INVALID_OBJECT: 'CONTROLLER_INVALID_OBJECT',
  STORE_CONFLICT: 'CONTROLLER_STORE_CONFLICT',
  STORE_NOT_FOUND: 'CONTROLLER_STORE_NOT_FOUND',
  NOT_STARTED: 'CONTROLLER_NOT_STARTED',
  INFORMER_FAILED: 'CONTROLLER_INFORMER_FAILED',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const kControllerError = Symbol.for('antrea-ts.controller.error');

export class ControllerError extends Error {
  readonly code: ErrorCode;
  readonly [kControllerError] = true;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ControllerError';
    this.code = code;
  }

  /** Works across duplicated copies of this package, unlike instanceof. */
  static is(err: unknown): err is ControllerError {
    return typeof err === 'object' && err !== null && kControllerError in err;
  }
}

export class InvalidCIDRError extends ControllerError {
  constructor(cidr: string) {
    super(ErrorCodes.INVALID_CIDR, `invalid CIDR ${JSON.stringify(cidr)}`);
    this.name = 'InvalidCIDRError';
  }
}

export class StoreConflictError extends ControllerError {
  constructor(kind: string, name: string) {
    super(ErrorCodes.STORE_CONFLICT, `${kind} ${name} already exists`);
    this.name = 'StoreConflictError';
  }
}

export class StoreNotFoundError extends ControllerError {
  constructor(kind: string, name: string) {
    super(ErrorCodes.STORE_NOT_FOUND, `${kind} ${name} not found`);
    this.name = 'StoreNotFoundError';
  }
}
