import { describe, expect, it } from 'vitest';
import { CniProtoDecodeError } from '../errors.js';
import {
  decodeGrpcMessage,
  encodeGrpcTimeout,
  frameMessage,
  grpcStatusFromHttp,
  unframeUnary,
} from './grpc-frame.js';

describe('gRPC framing', () => {
  it('prefixes a flag byte and a big-endian length', () => {
    expect(Buffer.from(frameMessage(Uint8Array.of(7, 8))).toString('hex')).toBe('00000000020708');
    expect(Buffer.from(frameMessage(new Uint8Array(0))).toString('hex')).toBe('0000000000');
  });

  it('unframes exactly one message', () => {
    expect(unframeUnary(frameMessage(Uint8Array.of(1, 2, 3)))).toEqual(Uint8Array.of(1, 2, 3));
    expect(() => unframeUnary(Uint8Array.of(0, 0, 0))).toThrow(CniProtoDecodeError);
    expect(() => unframeUnary(Uint8Array.of(1, 0, 0, 0, 0))).toThrow(/compressed/);
    expect(() => unframeUnary(Uint8Array.of(0, 0, 0, 0, 2, 1))).toThrow(/length 2/);
  });

  it('encodes grpc-timeout in at most 8 digits', () => {
    expect(encodeGrpcTimeout(100_000)).toBe('100000m');
    expect(encodeGrpcTimeout(0.2)).toBe('1m');
    expect(encodeGrpcTimeout(1e9)).toBe('1000000S');
  });

  it('percent-decodes grpc-message and keeps malformed ones', () => {
    expect(decodeGrpcMessage('no%20agent%3A%20x')).toBe('no agent: x');
    expect(decodeGrpcMessage('100%')).toBe('100%');
  });

  it('maps HTTP statuses as the gRPC spec says', () => {
    expect([400, 401, 403, 404, 429, 502, 503, 504, 500].map(grpcStatusFromHttp)).toEqual([
      13, 16, 7, 12, 14, 14, 14, 14, 2,
    ]);
  });
});
