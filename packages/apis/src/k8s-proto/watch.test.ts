import { describe, expect, it } from 'vitest';
import { ProtoError } from './errors.js';
import {
  decodeWatchEvent,
  encodeWatchEvent,
  encodeWatchFrame,
  type RawWatchEvent,
  type WatchEventType,
  WatchFrameDecoder,
} from './watch.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// apimachinery v0.34.4: streaming.NewEncoder(LengthDelimitedFramer.NewFrameWriter(w), RawSerializer)
// encoding metav1.WatchEvent{Type: "ERROR", Object.Raw: <the Status envelope>}.
const GO_STATUS_ENVELOPE =
  '6b3873000a0c0a0276311206537461747573' +
  '12230a060a0012001a0012074661696c7572651a04676f6e65220745787069726564309a031a002200';
const GO_WATCH_FRAME = `00000046 0a054552524f52 123d 0a3b ${GO_STATUS_ENVELOPE}`;

function expectProtoError(fn: () => unknown, code: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(ProtoError.is(caught), `expected ProtoError, got ${String(caught)}`).toBe(true);
  expect((caught as ProtoError).code).toBe(code);
}

/** Deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('watch event encoding', () => {
  it('produces the same frame as client-go/apiserver (golden from Go)', () => {
    expect(toHex(encodeWatchFrame('ERROR', hex(GO_STATUS_ENVELOPE)))).toBe(GO_WATCH_FRAME.replace(/\s/g, ''));
  });

  it('frame = 4-byte big-endian length + WatchEvent body', () => {
    const obj = new Uint8Array(300).fill(7);
    const frame = encodeWatchFrame('ADDED', obj);
    const body = encodeWatchEvent('ADDED', obj);
    expect(new DataView(frame.buffer).getUint32(0, false)).toBe(body.length);
    expect(frame.subarray(4)).toEqual(body);
    const ev = decodeWatchEvent(body);
    expect(ev.type).toBe('ADDED');
    expect(ev.object).toEqual(obj);
  });

  it('rejects unknown event types like client-go', () => {
    expectProtoError(() => decodeWatchEvent(hex('0a03464f4f 1200')), 'PROTO_DECODE');
    expectProtoError(() => decodeWatchEvent(new Uint8Array(0)), 'PROTO_DECODE');
  });
});

describe('WatchFrameDecoder', () => {
  const events: RawWatchEvent[] = [
    { type: 'ADDED', object: Uint8Array.of(1, 2, 3) },
    { type: 'MODIFIED', object: new Uint8Array(200).fill(9) },
    { type: 'BOOKMARK', object: new Uint8Array(0) },
    { type: 'DELETED', object: Uint8Array.of(4) },
  ];
  const stream = Uint8Array.from(events.flatMap((e) => [...encodeWatchFrame(e.type, e.object)]));

  it('decodes concatenated frames from one chunk', () => {
    const d = new WatchFrameDecoder();
    expect(d.push(stream)).toEqual(events);
    expect(d.bufferedBytes).toBe(0);
    d.end();
  });

  it('decodes the stream split at every byte boundary', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const d = new WatchFrameDecoder();
      const got = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))];
      expect(got).toEqual(events);
      d.end();
    }
  });

  it('decodes the stream fed one byte at a time and in random chunk sizes', () => {
    const d = new WatchFrameDecoder();
    const got: RawWatchEvent[] = [];
    for (const b of stream) got.push(...d.push(Uint8Array.of(b)));
    expect(got).toEqual(events);
    const r = rng(1);
    for (let round = 0; round < 50; round++) {
      const d2 = new WatchFrameDecoder();
      const got2: RawWatchEvent[] = [];
      let pos = 0;
      while (pos < stream.length) {
        const n = 1 + Math.floor(r() * 40);
        got2.push(...d2.push(stream.subarray(pos, pos + n)));
        pos += n;
      }
      expect(got2).toEqual(events);
    }
  });

  it('end() reports a truncated frame, and a clean end is fine', () => {
    for (const cut of [1, 3, 4, 10, stream.length - 1]) {
      const d = new WatchFrameDecoder();
      d.push(stream.subarray(0, cut));
      expectProtoError(() => d.end(), 'PROTO_TRUNCATED');
    }
    new WatchFrameDecoder().end();
  });

  it('rejects an oversized frame as soon as the header arrives, then stays failed', () => {
    const d = new WatchFrameDecoder({ maxFrameBytes: 100 });
    expectProtoError(() => d.push(Uint8Array.of(0, 0, 0, 101)), 'PROTO_FRAME_TOO_LARGE');
    expectProtoError(() => d.push(encodeWatchFrame('ADDED', Uint8Array.of(1))), 'PROTO_FRAME_TOO_LARGE');
    expectProtoError(() => d.end(), 'PROTO_FRAME_TOO_LARGE');
    // The default limit is client-go's 16 MiB.
    const big = new WatchFrameDecoder();
    expectProtoError(() => big.push(Uint8Array.of(0x01, 0x00, 0x00, 0x01)), 'PROTO_FRAME_TOO_LARGE');
  });

  it('rejects a frame whose body is not a WatchEvent', () => {
    const d = new WatchFrameDecoder();
    expectProtoError(() => d.push(hex('00000002 0aff')), 'PROTO_DECODE');
  });

  it('fuzz: random bytes and mutated streams only ever yield events or ProtoErrors', () => {
    const r = rng(42);
    const types = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
    for (let i = 0; i < 2000; i++) {
      let input: Uint8Array;
      if (i % 2 === 0) {
        input = new Uint8Array(Math.floor(r() * 64)).map(() => Math.floor(r() * 256));
      } else {
        input = Uint8Array.from(stream);
        const flips = 1 + Math.floor(r() * 4);
        for (let f = 0; f < flips; f++) input[Math.floor(r() * input.length)] = Math.floor(r() * 256);
      }
      const d = new WatchFrameDecoder({ maxFrameBytes: 4096 });
      try {
        let pos = 0;
        while (pos < input.length) {
          const n = 1 + Math.floor(r() * 16);
          for (const ev of d.push(input.subarray(pos, pos + n))) expect(types.has(ev.type)).toBe(true);
          pos += n;
        }
        d.end();
      } catch (err) {
        expect(ProtoError.is(err), `input ${toHex(input)} threw ${String(err)}`).toBe(true);
      }
    }
  });
});
