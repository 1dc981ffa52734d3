// Coded errors of the e2e framework: callers (the CLI, tests) branch on `code`, never on text.
export type E2eErrorCode =
  | 'E2E_CASE_READ' // a case or fixture file cannot be read or is not JSON
  | 'E2E_CASE_INVALID' // a case or fixture file does not follow netpol-oracle/v1
  | 'E2E_FIXTURE_NOT_FOUND' // a fixture id resolves to no fixtures/<id>.json
  | 'E2E_IP_MAPPING' // a literal CIDR cannot be rewritten to real Pod IPs with the same meaning
  | 'E2E_UNKNOWN_POD' // an action or probe names a Pod the case never created
  | 'E2E_UNSUPPORTED' // the provider cannot do what an action asks (kind, protocol)
  | 'E2E_PROVIDER' // a provider operation failed
  | 'E2E_PATCH' // a JSON patch cannot be applied
  | 'E2E_PROBE_TOOL'; // the probe helper printed something unexpected

export class E2eError extends Error {
  readonly code: E2eErrorCode;
  constructor(code: E2eErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'E2eError';
    this.code = code;
  }
}

export function isE2eError(e: unknown, code?: E2eErrorCode): e is E2eError {
  return e instanceof E2eError && (code === undefined || e.code === code);
}
