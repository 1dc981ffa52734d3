import { type ApiCodec, type ApiObject, FrameCache, type WatchSink } from '@antrea-ts/apiserver';
import {
  encodeProtobufRaw,
  protobufCodec,
  protobufFrameSize,
  writeProtobufFrame,
} from '../protobuf-codec.js';

/** Initial events are written in batches of about this size. */
export const INITIAL_BATCH_BYTES = 256 * 1024;
const FIRST_BUFFER_BYTES = 16 * 1024;

/** Encodings of shared wire objects (policies, address groups), reused by every new watcher. */
export class SharedEncodings {
  readonly #raw = new WeakMap<ApiObject, Uint8Array>();
  readonly #frames = new FrameCache();

  /** The bare protobuf message of `obj`. */
  raw(obj: ApiObject): Uint8Array {
    let r = this.#raw.get(obj);
    if (!r) {
      r = encodeProtobufRaw(obj);
      this.#raw.set(obj, r);
    }
    return r;
  }

  /** A complete frame in any codec. */
  frame(codec: ApiCodec, type: 'ADDED' | 'BOOKMARK', obj: ApiObject): Uint8Array {
    return this.#frames.frame(codec, type, obj);
  }
}

/**
 * A new watcher's initial events, written as a few large writes instead of one per object: a
 * reconnect storm of 1000 agents is otherwise dominated by per-write costs (HTTP/2 DATA frames,
 * TLS records) and by allocating two small buffers per object. Protobuf frames are written
 * straight into the batch buffer.
 */
export class InitialBatch {
  readonly #sink: WatchSink;
  readonly #shared: SharedEncodings;
  readonly #protobuf: boolean;
  #buf: Uint8Array | undefined;
  #pos = 0;
  readonly #frames: Uint8Array[] = [];
  #frameBytes = 0;

  constructor(sink: WatchSink, shared: SharedEncodings) {
    this.#sink = sink;
    this.#shared = shared;
    this.#protobuf = sink.codec === protobufCodec;
  }

  /** Appends one event; false once the sink refused (closed, too slow). */
  add(type: 'ADDED' | 'BOOKMARK', obj: ApiObject, shared: boolean): boolean {
    if (this.#protobuf) {
      const raw = shared ? this.#shared.raw(obj) : encodeProtobufRaw(obj);
      const kind = obj.kind as string;
      const size = protobufFrameSize(type, kind, raw.length);
      if (this.#buf && this.#pos + size > this.#buf.length) {
        if (this.#buf.length < INITIAL_BATCH_BYTES) {
          // Most watchers' whole initial state is a few tens of KiB: start small and grow.
          const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 4, this.#pos + size));
          grown.set(this.#buf.subarray(0, this.#pos));
          this.#buf = grown;
        } else if (!this.flush()) return false;
      }
      if (!this.#buf) this.#buf = Buffer.allocUnsafe(Math.max(FIRST_BUFFER_BYTES, size));
      this.#pos = writeProtobufFrame(this.#buf, this.#pos, type, kind, raw);
      return true;
    }
    const codec = this.#sink.codec;
    const f = shared ? this.#shared.frame(codec, type, obj) : codec.frameWatchEvent(type, codec.encode(obj));
    this.#frames.push(f);
    this.#frameBytes += f.length;
    return this.#frameBytes < INITIAL_BATCH_BYTES || this.flush();
  }

  /** Hands what is batched to the sink. */
  flush(): boolean {
    if (this.#buf) {
      // What waits in the watcher's queue should not pin a mostly empty buffer.
      const used = this.#buf.subarray(0, this.#pos);
      const out = this.#pos * 2 < this.#buf.length ? Uint8Array.prototype.slice.call(used) : used;
      this.#buf = undefined;
      this.#pos = 0;
      if (out.length > 0 && !this.#sink.sendFrame(out)) return false;
    }
    if (this.#frames.length === 0) return true;
    const out = this.#frames.length === 1 ? this.#frames[0]! : Buffer.concat(this.#frames, this.#frameBytes);
    this.#frames.length = 0;
    this.#frameBytes = 0;
    return this.#sink.sendFrame(out);
  }
}
