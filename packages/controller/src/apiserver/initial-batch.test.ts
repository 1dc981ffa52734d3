import { type ApiObject, jsonCodec, type WatchSink } from '@antrea-ts/apiserver';
import { describe, expect, it } from 'vitest';
import { protobufCodec } from '../protobuf-codec.js';
import { INITIAL_BATCH_BYTES, InitialBatch, SharedEncodings } from './initial-batch.js';

function sink(
  codec: WatchSink['codec'],
  accept = Number.POSITIVE_INFINITY,
): WatchSink & { writes: Uint8Array[] } {
  const ac = new AbortController();
  const writes: Uint8Array[] = [];
  return {
    codec,
    writes,
    send: () => {
      throw new Error('not used');
    },
    sendFrame(f) {
      if (writes.length >= accept) return false;
      writes.push(Uint8Array.from(f));
      return true;
    },
    closed: false,
    signal: ac.signal,
    close: () => ac.abort(),
  };
}

const np = (i: number, pad = 10): ApiObject => ({
  kind: 'NetworkPolicy',
  metadata: { name: `p${i}-${'x'.repeat(pad)}`, uid: `u${i}`, resourceVersion: String(i) },
  rules: [],
  sourceRef: { type: 'K8sNetworkPolicy', namespace: 'x', name: `p${i}`, uid: `u${i}` },
});

describe('InitialBatch', () => {
  for (const codec of [protobufCodec, jsonCodec]) {
    it(`writes exactly the frames one by one would (${codec.mediaType}), in batches`, () => {
      const s = sink(codec);
      const b = new InitialBatch(s, new SharedEncodings());
      // Enough objects (and one bigger than a batch) to need several writes.
      const objs = [...Array.from({ length: 3000 }, (_, i) => np(i)), np(9999, INITIAL_BATCH_BYTES)];
      for (const [i, o] of objs.entries()) expect(b.add('ADDED', o, i % 2 === 0)).toBe(true);
      expect(b.add('BOOKMARK', { kind: 'NetworkPolicy', metadata: { resourceVersion: '7' } }, true)).toBe(
        true,
      );
      expect(b.flush()).toBe(true);
      const expected = Buffer.concat([
        ...objs.map((o) => codec.frameWatchEvent('ADDED', codec.encode(o))),
        codec.frameWatchEvent(
          'BOOKMARK',
          codec.encode({ kind: 'NetworkPolicy', metadata: { resourceVersion: '7' } }),
        ),
      ]);
      expect(s.writes.length).toBeGreaterThan(2);
      expect(Buffer.concat(s.writes).equals(expected)).toBe(true);
    });
  }

  it('stops when the sink refuses', () => {
    const s = sink(protobufCodec, 1);
    const b = new InitialBatch(s, new SharedEncodings());
    let ok = true;
    for (let i = 0; i < 5000 && ok; i++) ok = b.add('ADDED', np(i), false);
    expect(ok).toBe(false);
    expect(s.writes).toHaveLength(1);
  });
});
