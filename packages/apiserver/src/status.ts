// Kubernetes metav1.Status errors. Handlers throw ApiError; the server turns it into the HTTP status
// and body clients (client-go, kubectl) already understand, so callers branch on `reason`.

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Expired'
  | 'Gone'
  | 'Invalid'
  | 'TooManyRequests'
  | 'RequestEntityTooLarge'
  | 'Timeout'
  | 'InternalError'
  | 'ServiceUnavailable';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }

  static badRequest(message: string): ApiError {
    return new ApiError(400, 'BadRequest', message);
  }

  /** The message is fixed: an unauthenticated caller learns nothing about the server. */
  static unauthorized(): ApiError {
    return new ApiError(401, 'Unauthorized', 'Unauthorized');
  }

  static notFound(resource: { group: string; resource: string }, name?: string): ApiError {
    const what = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
    return new ApiError(
      404,
      'NotFound',
      name === undefined ? 'the server could not find the requested resource' : `${what} "${name}" not found`,
      name === undefined ? undefined : { name, group: resource.group, kind: resource.resource },
    );
  }

  static pathNotFound(): ApiError {
    return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }

  static methodNotAllowed(method: string, what: string): ApiError {
    return new ApiError(405, 'MethodNotAllowed', `${method} is not supported on ${what}`);
  }

  static notAcceptable(supported: readonly string[]): ApiError {
    return new ApiError(
      406,
      'NotAcceptable',
      `only the following media types are accepted: ${supported.join(', ')}`,
    );
  }

  static unsupportedMediaType(contentType: string): ApiError {
    return new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format: ${contentType}`,
    );
  }

  /** What a watch or list at a resourceVersion the server no longer has gets; clients re-list. */
  static expired(message = 'too old resource version'): ApiError {
    return new ApiError(410, 'Expired', message);
  }

  static invalid(message: string, details?: StatusDetails): ApiError {
    return new ApiError(422, 'Invalid', message, details);
  }

  static internal(): ApiError {
    return new ApiError(
      500,
      'InternalError',
      'Internal error occurred: an error on the server prevented the request',
    );
  }

  static unavailable(message: string): ApiError {
    return new ApiError(503, 'ServiceUnavailable', message);
  }
}

export function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `the request body is larger than ${limit} bytes`);
}
