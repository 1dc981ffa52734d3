/**
 * Errors thrown by the protobuf codecs (k8s-proto, controlplane-proto, cni-proto). Callers branch on
 * `code`, never on message text. Kept beside the codecs until @antrea-ts/apis grows a shared
 * errors.ts; the catalogue is data so a test can keep it in step with the class.
 */
export const PROTO_ERROR_CODES = {
  /** Bytes are not a valid message of the expected type (bad magic, truncated, wrong wire type, bad value). */
  PROTO_DECODE: 'PROTO_DECODE',
  /** A value cannot be represented on the wire (bad timestamp, unknown kind, non-integer for an int field). */
  PROTO_ENCODE: 'PROTO_ENCODE',
  /** A watch frame header announced more bytes than the decoder accepts. */
  PROTO_FRAME_TOO_LARGE: 'PROTO_FRAME_TOO_LARGE',
  /** The watch stream ended in the middle of a frame. */
  PROTO_TRUNCATED: 'PROTO_TRUNCATED',
} as const;

export type ProtoErrorCode = (typeof PROTO_ERROR_CODES)[keyof typeof PROTO_ERROR_CODES];

const kProtoError = Symbol.for('antrea-ts.apis.proto-error');

export class ProtoError extends Error {
  readonly code: ProtoErrorCode;
  readonly [kProtoError] = true;

  constructor(code: ProtoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtoError';
    this.code = code;
  }

  /** Works across duplicate copies of this package, where `instanceof` would not. */
  static is(value: unknown): value is ProtoError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [kProtoError]?: boolean })[kProtoError] === true
    );
  }
}

/** Runs a decoder and turns whatever it throws (protobufjs RangeError, our own checks) into PROTO_DECODE. */
export function wrapDecode<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (ProtoError.is(err)) throw err;
    throw new ProtoError('PROTO_DECODE', `cannot decode ${what}: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
    });
  }
}
