/**
 * Every error this package throws. Callers branch on `code`, never on message text.
 */
export const FLOW_AGGREGATOR_ERROR_CODES = {
  /** flow-aggregator.conf is not valid YAML or a key has a value Antrea would refuse. */
  FA_CONFIG: 'FA_CONFIG',
  /** A configuration Antrea accepts that this implementation does not (tls, ClickHouse, S3, ...). */
  FA_UNSUPPORTED: 'FA_UNSUPPORTED',
  /** The collecting process could not listen. */
  FA_LISTEN: 'FA_LISTEN',
  /** The CA, client or server certificate could not be read, made or published in Kubernetes. */
  FA_TLS: 'FA_TLS',
} as const;

export type FlowAggregatorErrorCode =
  (typeof FLOW_AGGREGATOR_ERROR_CODES)[keyof typeof FLOW_AGGREGATOR_ERROR_CODES];

export class FlowAggregatorError extends Error {
  readonly code: FlowAggregatorErrorCode;

  constructor(code: FlowAggregatorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FlowAggregatorError';
    this.code = code;
  }
}
