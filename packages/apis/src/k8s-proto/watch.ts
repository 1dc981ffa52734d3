// Watch streams with Content-Type "application/vnd.kubernetes.protobuf;stream=watch".
// Verified against Kubernetes sources (apimachinery eed236ce, apiserver July 2026):
// - apimachinery pkg/runtime/serializer/codec_factory.go: the protobuf StreamSerializer is the
//   RawSerializer with LengthDelimitedFramer; pkg/util/framer/framer.go writes each frame as a
//   4-byte big-endian uint32 length followed by the body.
// - RawSerializer encodes the event without the "k8s\0" prefix and without a runtime.Unknown
//   wrapper, so the frame body is a bare meta/v1 WatchEvent {type=1 string, object=2
//   RawExtension{raw=1 bytes}} (pkg/apis/meta/v1/generated.proto, watch.go).
// - apiserver pkg/endpoints/handlers/watch.go encodes the embedded object with the negotiated
//   non-streaming Serializer, so object.raw is a complete "k8s\0" + runtime.Unknown envelope.
// - Go's WatchEvent marshaller always writes type and object, and RawExtension writes raw when
//   non-nil; our encoder produces the same bytes.
// - client-go's streaming decoder refuses frames over 16 MiB (streaming.go maxBytes); we default
//   to the same limit.
import { ProtoError, wrapDecode } from './errors.js';
import {
  decodeUtf8,
  encodeUtf8,
  expectWireType,
  lenFieldSize,
  readFields,
  WIRE_LEN,
  writeLenField,
  writeVarint,
} from './wire.js';

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

/** A watch event whose object is still an encoded "k8s\0" + Unknown envelope. */
export interface RawWatchEvent {
  type: WatchEventType;
  object: Uint8Array;
}

export const DEFAULT_MAX_WATCH_FRAME_BYTES = 16 * 1024 * 1024;
const FRAME_HEADER_BYTES = 4;

function isWatchEventType(s: string): s is WatchEventType {
  return (WATCH_EVENT_TYPES as readonly string[]).includes(s);
}

function watchEventSize(typeBytes: Uint8Array, object: Uint8Array): { size: number; rawExtLen: number } {
  const rawExtLen = lenFieldSize(object.length);
  return { size: lenFieldSize(typeBytes.length) + lenFieldSize(rawExtLen), rawExtLen };
}

function writeWatchEvent(
  out: Uint8Array,
  pos: number,
  typeBytes: Uint8Array,
  rawExtLen: number,
  object: Uint8Array,
): number {
  pos = writeLenField(out, pos, 1, typeBytes);
  out[pos++] = (2 << 3) | WIRE_LEN;
  pos = writeVarint(out, pos, rawExtLen);
  return writeLenField(out, pos, 1, object);
}

/** Encodes a meta/v1 WatchEvent body (no frame header). `object` is an encoded envelope. */
export function encodeWatchEvent(type: WatchEventType, object: Uint8Array): Uint8Array {
  const typeBytes = encodeUtf8(type);
  const { size, rawExtLen } = watchEventSize(typeBytes, object);
  const out = new Uint8Array(size);
  writeWatchEvent(out, 0, typeBytes, rawExtLen, object);
  return out;
}

/**
 * Encodes one complete frame: 4-byte big-endian length + WatchEvent. One allocation, one copy of
 * `object`, so a controller can encode an object once and frame it cheaply per watcher.
 */
export function encodeWatchFrame(type: WatchEventType, object: Uint8Array): Uint8Array {
  const typeBytes = encodeUtf8(type);
  const { size, rawExtLen } = watchEventSize(typeBytes, object);
  const out = new Uint8Array(FRAME_HEADER_BYTES + size);
  new DataView(out.buffer).setUint32(0, size, false);
  writeWatchEvent(out, FRAME_HEADER_BYTES, typeBytes, rawExtLen, object);
  return out;
}

/** Decodes a WatchEvent body. The returned object is a view into `bytes` (no copy). */
export function decodeWatchEvent(bytes: Uint8Array): RawWatchEvent {
  return wrapDecode('WatchEvent', () => {
    let type = '';
    let object: Uint8Array | undefined;
    readFields(bytes, (field, wireType, r) => {
      if (field === 1) {
        expectWireType(field, wireType, WIRE_LEN);
        type = decodeUtf8(r.bytes());
        return true;
      }
      if (field === 2) {
        expectWireType(field, wireType, WIRE_LEN);
        object = decodeRawExtension(r.bytes());
        return true;
      }
      return false;
    });
    // client-go's watch decoder rejects any other type string the same way.
    if (!isWatchEventType(type)) throw new Error(`invalid watch event type ${JSON.stringify(type)}`);
    return { type, object: object ?? new Uint8Array(0) };
  });
}

function decodeRawExtension(bytes: Uint8Array): Uint8Array {
  let raw: Uint8Array = new Uint8Array(0);
  readFields(bytes, (field, wireType, r) => {
    if (field !== 1) return false;
    expectWireType(field, wireType, WIRE_LEN);
    raw = r.bytes();
    return true;
  });
  return raw;
}

export interface WatchFrameDecoderOptions {
  /** Largest frame body accepted; a bigger header is an error. Default 16 MiB like client-go. */
  maxFrameBytes?: number;
}

/**
 * Incremental client-side decoder for a protobuf watch stream. Feed it chunks as they arrive;
 * `push` returns every event completed by that chunk. The first malformed or oversized frame
 * throws a ProtoError and leaves the decoder failed (a length-prefixed stream cannot resync), so
 * later calls throw the same error.
 */
export class WatchFrameDecoder {
  readonly #maxFrameBytes: number;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  /** Body length from the current frame header, or -1 while the header is incomplete. */
  #frameLength = -1;
  #failure: ProtoError | undefined;

  constructor(options: WatchFrameDecoderOptions = {}) {
    this.#maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_WATCH_FRAME_BYTES;
  }

  /** Bytes received but not yet part of a returned event. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  push(chunk: Uint8Array): RawWatchEvent[] {
    if (this.#failure) throw this.#failure;
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const events: RawWatchEvent[] = [];
    try {
      for (;;) {
        if (this.#frameLength < 0) {
          if (this.#buffered < FRAME_HEADER_BYTES) break;
          const header = this.#take(FRAME_HEADER_BYTES);
          const length = new DataView(header.buffer, header.byteOffset, 4).getUint32(0, false);
          if (length > this.#maxFrameBytes) {
            throw new ProtoError(
              'PROTO_FRAME_TOO_LARGE',
              `watch frame of ${length} bytes exceeds the limit of ${this.#maxFrameBytes}`,
            );
          }
          this.#frameLength = length;
        }
        if (this.#buffered < this.#frameLength) break;
        const body = this.#take(this.#frameLength);
        this.#frameLength = -1;
        events.push(decodeWatchEvent(body));
      }
    } catch (err) {
      this.#fail(err as ProtoError);
    }
    return events;
  }

  /** Call when the stream ends; throws PROTO_TRUNCATED if a frame was cut short. */
  end(): void {
    if (this.#failure) throw this.#failure;
    if (this.#buffered > 0 || this.#frameLength >= 0) {
      this.#fail(
        new ProtoError(
          'PROTO_TRUNCATED',
          `watch stream ended inside a frame (${this.#buffered} bytes pending)`,
        ),
      );
    }
  }

  #fail(err: ProtoError): never {
    this.#failure = err;
    this.#chunks = [];
    this.#buffered = 0;
    throw err;
  }

  /** Removes exactly n buffered bytes; a view when they sit in one chunk, else one copy. */
  #take(n: number): Uint8Array {
    this.#buffered -= n;
    const first = this.#chunks[0];
    if (n === 0) return new Uint8Array(0);
    if (first && first.length >= n) {
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = new Uint8Array(n);
    let pos = 0;
    while (pos < n) {
      const c = this.#chunks[0]!;
      const want = n - pos;
      if (c.length <= want) {
        out.set(c, pos);
        pos += c.length;
        this.#chunks.shift();
      } else {
        out.set(c.subarray(0, want), pos);
        this.#chunks[0] = c.subarray(want);
        pos += want;
      }
    }
    return out;
  }
}
