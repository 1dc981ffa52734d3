/** Errors of the API server's infrastructure; `code` is stable, messages are not. */
export const API_SERVER_ERROR_CODES = [
  /** A certificate could not be built or parsed. */
  'APISERVER_CERT_INVALID',
  /** The HTTPS listener could not be started. */
  'APISERVER_LISTEN_FAILED',
  /** A TokenReview or SubjectAccessReview call failed (not a negative answer: the call itself). */
  'APISERVER_REVIEW_FAILED',
  /** kube-system/extension-apiserver-authentication could not be read or parsed. */
  'APISERVER_AUTHN_CONFIG_INVALID',
  /** Publishing the CA bundle (ConfigMap or APIService) failed. */
  'APISERVER_PUBLISH_FAILED',
  /** A resource was registered twice or with an inconsistent definition. */
  'APISERVER_REGISTRY_CONFLICT',
  /** A selector string does not parse. */
  'APISERVER_SELECTOR_INVALID',
] as const;

export type ApiServerErrorCode = (typeof API_SERVER_ERROR_CODES)[number];

export class ApiServerError extends Error {
  readonly code: ApiServerErrorCode;

  constructor(code: ApiServerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiServerError';
    this.code = code;
  }
}
