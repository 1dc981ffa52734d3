/**
 * Errors of the NSX adapter. Callers branch on `code`, never on message text.
 *
 * - `NsxRequestError`: NSX answered with an error body (ApiError) or an HTTP error status.
 * - `NsxUnreachableError`: no answer at all (connection refused, TLS failure, timeout).
 * - `TranslationError`: an NSX object uses a feature the adapter cannot express in Antrea; it becomes
 *   a realization error for the policy, never a partially translated policy.
 * - `KubeRequestError`: kube-apiserver refused a request.
 * - `AdapterConfigError`: invalid options.
 */

export const ADAPTER_ERROR_CODES = [
  'NSX_REQUEST_FAILED',
  'NSX_STALE_REVISION',
  'NSX_NOT_FOUND',
  'NSX_AUTH_FAILED',
  'NSX_UNREACHABLE',
  'TRANSLATION_UNSUPPORTED',
  'TRANSLATION_INVALID',
  'K8S_REQUEST_FAILED',
  'K8S_CONFLICT',
  'K8S_NOT_FOUND',
  'ADAPTER_CONFIG_INVALID',
] as const;

export type AdapterErrorCode = (typeof ADAPTER_ERROR_CODES)[number];

const kAdapterError = Symbol.for('antrea-ts.nsx-adapter.error');

export class AdapterError extends Error {
  readonly code: AdapterErrorCode;
  constructor(code: AdapterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, kAdapterError, { value: true });
  }
  static is(value: unknown): value is AdapterError {
    return typeof value === 'object' && value !== null && kAdapterError in value;
  }
}

/** The NSX ApiError body (research notes §1.3). */
export interface NsxErrorBody {
  httpStatus?: string;
  error_code?: number;
  error_message?: string;
  module_name?: string;
  related_errors?: { error_code?: number; error_message?: string }[];
}

/** Maps an HTTP status and NSX error_code to a code, following nsx-operator's mapping where it exists. */
export function nsxErrorCode(status: number, errorCode: number | undefined): AdapterErrorCode {
  if (status === 409 || status === 412) return 'NSX_STALE_REVISION';
  if (status === 400 && (errorCode === 500087 || errorCode === 500232 || errorCode === 100148))
    return 'NSX_STALE_REVISION';
  if (status === 404) return 'NSX_NOT_FOUND';
  if (status === 401 || status === 403) return 'NSX_AUTH_FAILED';
  return 'NSX_REQUEST_FAILED';
}

export class NsxRequestError extends AdapterError {
  readonly status: number;
  readonly errorCode: number | undefined;
  readonly body: NsxErrorBody | undefined;
  constructor(method: string, path: string, status: number, body: NsxErrorBody | undefined) {
    const code = nsxErrorCode(status, body?.error_code);
    const detail = body?.error_message ?? `HTTP ${status}`;
    super(
      code,
      `NSX ${method} ${path} failed (${status}${body?.error_code ? `/${body.error_code}` : ''}): ${detail}`,
    );
    this.status = status;
    this.errorCode = body?.error_code;
    this.body = body;
  }
}

export class NsxUnreachableError extends AdapterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NSX_UNREACHABLE', message, options);
  }
}

export class TranslationError extends AdapterError {
  /** Policy path of the NSX object the error belongs to (or a group/service path). */
  readonly nsxPath: string;
  /** One entry per problem (a policy collects the problems of all its rules). */
  readonly details: readonly string[];
  constructor(
    code: 'TRANSLATION_UNSUPPORTED' | 'TRANSLATION_INVALID',
    nsxPath: string,
    message: string | readonly string[],
  ) {
    const details = typeof message === 'string' ? [message] : [...message];
    super(code, details.join('; '));
    this.nsxPath = nsxPath;
    this.details = details;
  }
}

export class KubeRequestError extends AdapterError {
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined, options?: { cause?: unknown }) {
    super(
      status === 409 ? 'K8S_CONFLICT' : status === 404 ? 'K8S_NOT_FOUND' : 'K8S_REQUEST_FAILED',
      message,
      options,
    );
    this.status = status;
  }
}

export class AdapterConfigError extends AdapterError {
  constructor(message: string) {
    super('ADAPTER_CONFIG_INVALID', message);
  }
}
