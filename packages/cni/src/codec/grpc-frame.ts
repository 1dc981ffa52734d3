import { CniProtoDecodeError } from '../errors.js';

// gRPC over HTTP/2 framing (PROTOCOL-HTTP2.md): each message is a 1-byte compressed flag, a 4-byte
// big-endian length, then the bytes. Pure functions; the transport owns the streams.

export function frameMessage(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, 5);
  return out;
}

/** The single message of a unary response body. */
export function unframeUnary(body: Uint8Array): Uint8Array {
  if (body.length < 5)
    throw new CniProtoDecodeError(`gRPC response body of ${body.length} bytes has no message`);
  if (body[0] !== 0) throw new CniProtoDecodeError('compressed gRPC messages are not supported');
  const len = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1);
  if (body.length !== 5 + len) {
    throw new CniProtoDecodeError(
      `gRPC message length ${len} does not match body of ${body.length - 5} bytes`,
    );
  }
  return body.subarray(5);
}

/** The grpc-timeout header: at most 8 digits and a unit. */
export function encodeGrpcTimeout(ms: number): string {
  const t = Math.max(1, Math.ceil(ms));
  return t < 1e8 ? `${t}m` : `${Math.min(Math.ceil(t / 1000), 99_999_999)}S`;
}

/** grpc-message is percent-encoded; a malformed one is shown as received. */
export function decodeGrpcMessage(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** gRPC status for a non-200 HTTP status, per the gRPC spec's http-grpc-status-mapping.md. */
export function grpcStatusFromHttp(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
      return 13;
    case 401:
      return 16;
    case 403:
      return 7;
    case 404:
      return 12;
    case 429:
    case 502:
    case 503:
    case 504:
      return 14;
    default:
      return 2;
  }
}
