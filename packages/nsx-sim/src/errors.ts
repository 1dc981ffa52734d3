/**
 * Errors of the NSX simulator.
 *
 * Two families:
 * - `NsxApiError`: an error that becomes an NSX `ApiError` HTTP body. `code` names the situation for
 *   callers inside the simulator; `errorCode` is the integer NSX `error_code` on the wire.
 * - process errors (`StateFileError`, `TlsSetupError`): failures of the simulator itself.
 *
 * Codes marked "sim" are chosen by the simulator because the public NSX documentation does not say
 * which number NSX uses for that situation (see README.md, "Departures").
 */

export interface NsxRelatedError {
  httpStatus: string;
  error_code: number;
  module_name: string;
  error_message: string;
}

export interface NsxErrorBody {
  httpStatus: string;
  error_code: number;
  module_name: string;
  error_message: string;
  related_errors: NsxRelatedError[];
}

const HTTP_STATUS_NAMES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export function httpStatusName(status: number): string {
  return HTTP_STATUS_NAMES[status] ?? `HTTP_${status}`;
}

/** Catalogue of API error situations: code -> HTTP status, NSX error_code, module. */
export const NSX_API_ERRORS = {
  /** Request failed schema validation (sim: NSX reports field validation errors with various codes). */
  NSX_INVALID_REQUEST: { status: 400, errorCode: 255, module: 'common-services' },
  /** Semantic validation failure of an object (group expression rules, rule fields...). sim code. */
  NSX_INVALID_OBJECT: { status: 400, errorCode: 500090, module: 'policy' },
  /** A referenced policy path does not exist. sim code. */
  NSX_INVALID_PATH: { status: 400, errorCode: 500012, module: 'policy' },
  /** Object (or URL) not found. sim code for objects; NSX uses 202 for some backend objects. */
  NSX_NOT_FOUND: { status: 404, errorCode: 600, module: 'common-services' },
  /** PUT on an existing object without `_revision` (public automation script: 500127). */
  NSX_REVISION_REQUIRED: { status: 400, errorCode: 500127, module: 'policy' },
  /** `_revision` does not match the stored one (NSX MP uses 604 with 412). */
  NSX_STALE_REVISION: { status: 412, errorCode: 604, module: 'common-services' },
  /** Object is referenced by another object (nsx-operator maps 400+500030 to ResourceInUse). */
  NSX_RESOURCE_IN_USE: { status: 400, errorCode: 500030, module: 'policy' },
  /** Client certificate already used by another ClusterControlPlane (KB 345885 "PM220"). */
  NSX_CERTIFICATE_CONFLICT: { status: 400, errorCode: 220, module: 'policy' },
  /** Object already exists where a create was requested. sim code. */
  NSX_ALREADY_EXISTS: { status: 409, errorCode: 500127, module: 'policy' },
  /** Another request is already running for the same target (support bundle per cluster). sim code. */
  NSX_CONCURRENT_REQUEST: { status: 409, errorCode: 36219, module: 'support-bundle' },
  /** Object owned by a protected principal identity changed by someone else without X-Allow-Overwrite. sim code. */
  NSX_PROTECTED_OBJECT: { status: 403, errorCode: 520017, module: 'policy' },
  /** Authentication failed (error body observed in public sources). */
  NSX_AUTH_FAILED: { status: 403, errorCode: 403, module: 'common-services' },
  /** Request body too large. */
  NSX_PAYLOAD_TOO_LARGE: { status: 413, errorCode: 413, module: 'common-services' },
  /** Unsupported content type. */
  NSX_UNSUPPORTED_MEDIA_TYPE: { status: 415, errorCode: 415, module: 'common-services' },
  /** `/sim/wait` gave up. */
  NSX_SIM_WAIT_TIMEOUT: { status: 408, errorCode: 408, module: 'nsx-sim' },
  /** Anything unexpected. */
  NSX_INTERNAL: { status: 500, errorCode: 99, module: 'common-services' },
} as const satisfies Record<string, { status: number; errorCode: number; module: string }>;

export type NsxApiErrorCode = keyof typeof NSX_API_ERRORS;

const kNsxSimError = Symbol.for('antrea-ts.nsx-sim.error');

export class NsxSimError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, kNsxSimError, { value: true });
  }
  static is(value: unknown): value is NsxSimError {
    return typeof value === 'object' && value !== null && kNsxSimError in value;
  }
}

/** An error that is answered with an NSX ApiError body. */
export class NsxApiError extends NsxSimError {
  declare readonly code: NsxApiErrorCode;
  readonly status: number;
  readonly errorCode: number;
  readonly moduleName: string;
  readonly related: NsxRelatedError[];

  constructor(
    code: NsxApiErrorCode,
    message: string,
    options?: { cause?: unknown; related?: string[]; errorCode?: number },
  ) {
    super(code, message, options);
    const entry = NSX_API_ERRORS[code];
    this.status = entry.status;
    this.errorCode = options?.errorCode ?? entry.errorCode;
    this.moduleName = entry.module;
    this.related = (options?.related ?? []).map((m) => ({
      httpStatus: httpStatusName(entry.status),
      error_code: this.errorCode,
      module_name: entry.module,
      error_message: m,
    }));
  }

  toBody(): NsxErrorBody {
    return {
      httpStatus: httpStatusName(this.status),
      error_code: this.errorCode,
      module_name: this.moduleName,
      error_message: this.message,
      related_errors: this.related,
    };
  }
}

/** The state file could not be read, parsed or written. */
export class StateFileError extends NsxSimError {
  declare readonly code: 'NSX_SIM_STATE_FILE';
  constructor(message: string, options?: { cause?: unknown }) {
    super('NSX_SIM_STATE_FILE', message, options);
  }
}

/** Generating the self-signed CA or server certificate failed. */
export class TlsSetupError extends NsxSimError {
  declare readonly code: 'NSX_SIM_TLS_SETUP';
  constructor(message: string, options?: { cause?: unknown }) {
    super('NSX_SIM_TLS_SETUP', message, options);
  }
}

export const PROCESS_ERROR_CODES = ['NSX_SIM_STATE_FILE', 'NSX_SIM_TLS_SETUP'] as const;

export function notFound(what: string): NsxApiError {
  return new NsxApiError(
    'NSX_NOT_FOUND',
    `The requested object : ${what} could not be found. Object identifiers are case sensitive.`,
  );
}
