import { describe, expect, it } from 'vitest';
import { isOpenFlowError } from '../errors.js';
import { SAMPLE_FLOWS } from '../testing/sample-flows.js';
import { encodeError, encodeFeaturesReply, encodeHello } from './basic.js';
import { encodeBundleAdd, encodeBundleControl } from './bundle.js';
import { encodeFlowMod } from './flow-mod.js';
import { encodeGroupMod } from './group-mod.js';
import { FrameSplitter } from './header.js';
import { decodeMessage } from './message.js';
import { encodeMeterMod } from './meter-mod.js';
import { encodeFlowStatsReply } from './multipart.js';
import { encodePacketIn2, encodePacketOut } from './packet.js';

/** Deterministic PRNG (xorshift32) so a failure reproduces from its iteration number. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const corpus: Buffer[] = [
  encodeHello(1),
  encodeError(2, 2, 9, Buffer.alloc(64, 1)),
  encodeFeaturesReply(3, { datapathId: 5n, nBuffers: 0, nTables: 254, auxiliaryId: 0, capabilities: 0 }),
  ...SAMPLE_FLOWS.map((s, i) => encodeFlowMod(10 + i, { command: 'ADD', ...s.flow })),
  encodeGroupMod(40, {
    command: 'ADD',
    type: 'select',
    groupId: 1,
    buckets: [{ bucketId: 1, weight: 5, actions: [{ type: 'output', port: 1 }] }],
  }),
  encodeGroupMod(47, {
    command: 'ADD_OR_MOD',
    type: 'select',
    groupId: 2,
    buckets: [{ bucketId: 0, actions: [{ type: 'output', port: 1 }] }],
    selection: {
      method: 'hash',
      param: 7n,
      fields: [{ field: 'nw_src', mask: 0xffffff00n }, { field: 'udp_src' }],
    },
  }),
  encodeMeterMod(41, { command: 'ADD', meterId: 1, bands: [{ type: 'drop', rate: 1 }] }),
  encodePacketOut(42, { inPort: 1, actions: [{ type: 'output', port: 2 }], packet: Buffer.alloc(60) }),
  encodeBundleControl(43, 1, 'COMMIT_REQUEST', { atomic: true }),
  encodeBundleAdd(1, { atomic: true }, encodeFlowMod(44, { command: 'ADD', ...SAMPLE_FLOWS[2]!.flow })),
  encodeFlowStatsReply(
    45,
    SAMPLE_FLOWS.map((s) => ({ ...s.flow, packetCount: 3n, byteCount: 9n, durationSec: 1 })),
  ),
  encodePacketIn2(46, {
    packet: Buffer.alloc(60, 7),
    tableId: 3,
    cookie: 9n,
    reason: 'action',
    userdata: Buffer.from([1, 2]),
    metadata: SAMPLE_FLOWS[1]!.flow.match,
  }),
];

/** Decoding must either succeed or fail with an OpenFlow error; anything else is a crash. */
function mustNotCrash(msg: Buffer, label: string): void {
  try {
    decodeMessage(msg);
  } catch (err) {
    if (!isOpenFlowError(err))
      throw new Error(`${label}: decoder crashed with ${String(err)}`, { cause: err });
  }
}

function withLength(b: Buffer): Buffer {
  const c = Buffer.from(b);
  if (c.length >= 4) c.writeUInt16BE(Math.min(c.length, 0xffff), 2);
  return c;
}

describe('decoders reject malformed input with OpenFlow errors, never crash or hang', () => {
  it('the corpus itself decodes', () => {
    for (const m of corpus) expect(() => decodeMessage(m)).not.toThrow();
  });

  it('every truncation of every corpus message (header length adjusted)', () => {
    for (const [i, m] of corpus.entries()) {
      for (let len = 0; len < m.length; len++)
        mustNotCrash(withLength(m.subarray(0, len)), `msg ${i} cut at ${len}`);
    }
  });

  it('random byte mutations (bounded iterations, seeded)', () => {
    const rand = prng(0xc0ffee);
    for (let iter = 0; iter < 20_000; iter++) {
      const base = corpus[Math.floor(rand() * corpus.length)]!;
      const m = Buffer.from(base);
      const flips = 1 + Math.floor(rand() * 6);
      for (let f = 0; f < flips; f++) {
        // Bias towards the first bytes of nested structures' length fields by picking any offset >= 8.
        const at = 8 + Math.floor(rand() * (m.length - 8));
        m[at] = Math.floor(rand() * 256);
      }
      mustNotCrash(m, `iteration ${iter}`);
    }
  });

  it('random frames of random length', () => {
    const rand = prng(42);
    for (let iter = 0; iter < 5_000; iter++) {
      const len = 8 + Math.floor(rand() * 300);
      const m = Buffer.alloc(len);
      for (let i = 0; i < len; i++) m[i] = Math.floor(rand() * 256);
      m[0] = 6;
      m[1] = Math.floor(rand() * 35);
      m.writeUInt16BE(len, 2);
      mustNotCrash(m, `random frame ${iter}`);
    }
  });

  it('the stream splitter survives garbage without unbounded buffering', () => {
    const rand = prng(7);
    const sp = new FrameSplitter();
    for (let iter = 0; iter < 2_000; iter++) {
      const chunk = Buffer.alloc(1 + Math.floor(rand() * 64));
      for (let i = 0; i < chunk.length; i++) chunk[i] = Math.floor(rand() * 256);
      try {
        for (const f of sp.push(chunk)) mustNotCrash(f, `frame ${iter}`);
      } catch (err) {
        if (!isOpenFlowError(err)) throw err;
      }
      expect(sp.buffered).toBeLessThanOrEqual(0xffff + 64);
    }
  });
});
