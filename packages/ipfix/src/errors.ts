/**
 * Every error this package throws. Callers branch on `code`, never on message text.
 */
export const IPFIX_ERROR_CODES = {
  /** Bytes that are not a well-formed IPFIX message (bad version, lengths, truncated fields). */
  IPFIX_DECODE: 'IPFIX_DECODE',
  /** A value that does not fit its information element (wrong type, out of range, too long). */
  IPFIX_ENCODE: 'IPFIX_ENCODE',
  /** An information element name or id this registry does not know. */
  IPFIX_UNKNOWN_ELEMENT: 'IPFIX_UNKNOWN_ELEMENT',
  /** Sending failed: no connection to the collector, or the socket failed while writing. */
  IPFIX_SEND: 'IPFIX_SEND',
  /** A TLS handshake with the flow aggregator failed (untrusted CA, name mismatch, client certificate refused). */
  IPFIX_TLS: 'IPFIX_TLS',
  /** The exporter or collector was closed. */
  IPFIX_CLOSED: 'IPFIX_CLOSED',
} as const;

export type IpfixErrorCode = (typeof IPFIX_ERROR_CODES)[keyof typeof IPFIX_ERROR_CODES];

const kIpfixError = Symbol.for('antrea-ts.ipfix.error');

export class IpfixError extends Error {
  readonly code: IpfixErrorCode;
  readonly [kIpfixError] = true;

  constructor(code: IpfixErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IpfixError';
    this.code = code;
  }

  /** Works across duplicate copies of this package, where `instanceof` would not. */
  static is(value: unknown): value is IpfixError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [kIpfixError]?: boolean })[kIpfixError] === true
    );
  }
}
