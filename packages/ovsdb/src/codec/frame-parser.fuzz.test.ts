import { describe, expect, it } from 'vitest';
import { OvsdbError } from '../errors.js';
import { FrameParser } from './frame-parser.js';
import { classifyMessage } from './jsonrpc.js';
import { decodeTableUpdates, decodeTableUpdates2 } from './monitor.js';
import { decodeTransactResult } from './operations.js';
import { decodeValue } from './value.js';

/** Small deterministic PRNG so a failure is reproducible from the printed seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEEDS = [
  '{"id":1,"result":[{"uuid":["uuid","5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11"]},{"count":1}],"error":null}',
  '{"id":null,"method":"update2","params":["m",{"Interface":{"6f0b1c7e-4e1a-4a51-8e0c-0a1b2c3d4e5f":{"modify":{"ofport":["set",[1,2]]}}}}]}',
  '{"id":"echo","method":"echo","params":["\\"}{\\\\",[],{}]}',
  '{"id":3,"result":{"T":{"00000000-0000-0000-0000-000000000000":{"new":{"m":["map",[["k","v"]]]}}}},"error":null}',
];
const ALPHABET = '{}[]"\\:,0123456789abc-eE.+ \n\t\u00e9';

const encoder = new TextEncoder();

function mutate(rand: () => number, input: Uint8Array): Uint8Array {
  const out = Array.from(input);
  const edits = 1 + Math.floor(rand() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (out.length + 1));
    const kind = rand();
    if (kind < 0.3) out.splice(at, 1);
    else if (kind < 0.6)
      out.splice(at, 0, ...encoder.encode(ALPHABET[Math.floor(rand() * ALPHABET.length)]!));
    else if (kind < 0.8) out[Math.min(at, out.length - 1)] = Math.floor(rand() * 256);
    else out.length = at; // truncate
  }
  return Uint8Array.from(out);
}

/** Runs bytes through the parser and every decoder behind it, like the transport does. */
function decodeAll(rand: () => number, input: Uint8Array): void {
  const parser = new FrameParser({ maxFrameBytes: 4096, maxDepth: 32 });
  let at = 0;
  while (at < input.length) {
    const size = 1 + Math.floor(rand() * 64);
    const r = parser.push(input.subarray(at, at + size));
    at += size;
    for (const m of r.messages) {
      // Downstream decoders may reject, but only with our own coded errors.
      for (const decode of [
        () => classifyMessage(m),
        () => decodeValue((m as { params?: unknown[] }).params?.[0]),
        () => decodeTableUpdates((m as { result?: unknown }).result),
        () => decodeTableUpdates2((m as { params?: unknown[] }).params?.[1]),
        () => decodeTransactResult([{ op: 'abort' }], (m as { result?: unknown }).result),
      ]) {
        try {
          decode();
        } catch (err) {
          if (!OvsdbError.is(err)) throw err;
        }
      }
    }
    if (r.error) {
      expect(r.error.code).toBe('OVSDB_PARSE');
      return;
    }
  }
  const end = parser.end();
  if (end) expect(end.code).toBe('OVSDB_PARSE');
}

describe('FrameParser fuzz', () => {
  it('never throws, never hangs, and only reports OVSDB_PARSE on mutated frames', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const rand = mulberry32(seed);
      const base = encoder.encode(SEEDS[seed % SEEDS.length]! + SEEDS[(seed + 1) % SEEDS.length]!);
      try {
        decodeAll(rand, mutate(rand, base));
      } catch (err) {
        throw new Error(`seed ${seed}: ${(err as Error).stack}`);
      }
    }
  });

  it('handles purely random bytes', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = mulberry32(seed * 7919);
      const input = Uint8Array.from({ length: Math.floor(rand() * 512) }, () => Math.floor(rand() * 256));
      // Bias some runs to start like a message so the parser gets past the first byte.
      if (seed % 2 === 0 && input.length > 0) input[0] = 0x7b;
      try {
        decodeAll(rand, input);
      } catch (err) {
        throw new Error(`seed ${seed}: ${(err as Error).stack}`);
      }
    }
  });
});
