import { describe, expect, it } from 'vitest';
import { OvsdbError } from '../errors.js';
import { classifyMessage, describeRpcError } from './jsonrpc.js';
import { applyRowDiff, decodeTableUpdates, decodeTableUpdates2, normalizeRow } from './monitor.js';
import { decodeTransactResult } from './operations.js';
import { decodeSchema } from './schema.js';
import { decodeRow, decodeValue, encodeValue } from './value.js';

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

const WORDS = [
  'uuid',
  'named-uuid',
  'set',
  'map',
  'error',
  'details',
  'rows',
  'uuid',
  'count',
  'initial',
  'insert',
  'modify',
  'delete',
  'old',
  'new',
  '__proto__',
  'name',
  'ofport',
  'tables',
  'columns',
  'type',
  'key',
  'value',
  'min',
  'max',
  '5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11',
  'x',
];

/** Random JSON biased towards OVSDB shapes, so decoders get past their first check. */
function randomJson(rand: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const r = rand();
  if (depth <= 0 || r < 0.25) {
    return pick([null, true, false, 0, -1, 1.5, 2 ** 60, '', pick(WORDS)]);
  }
  if (r < 0.55) {
    const tagged = rand() < 0.5;
    const len = Math.floor(rand() * 4);
    const items = Array.from({ length: len }, () => randomJson(rand, depth - 1));
    return tagged ? [pick(WORDS), items.length === 1 ? items[0] : items] : items;
  }
  const obj: Record<string, unknown> = {};
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) obj[pick(WORDS)] = randomJson(rand, depth - 1);
  return obj;
}

const DECODERS: [string, (json: unknown) => unknown][] = [
  ['classifyMessage', classifyMessage],
  ['describeRpcError', describeRpcError],
  ['decodeValue', decodeValue],
  ['decodeRow', decodeRow],
  ['decodeTableUpdates', decodeTableUpdates],
  ['decodeTableUpdates2', decodeTableUpdates2],
  ['decodeSchema', decodeSchema],
  ['decodeTransactResult', (j) => decodeTransactResult([{ op: 'select', table: 'T', where: [] }], j)],
  [
    'schema+diff',
    (j) => {
      const schema = decodeSchema({
        name: 'db',
        tables: {
          T: {
            columns: {
              s: { type: { key: 'string', min: 0, max: 'unlimited' } },
              m: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
            },
          },
        },
      }).tables['T']!;
      const row = decodeRow(j);
      return applyRowDiff(normalizeRow(row, schema), row, schema);
    },
  ],
];

describe('decoder fuzz', () => {
  it('throws nothing but coded OvsdbErrors on random OVSDB-shaped JSON', () => {
    const seen = new Map<string, number>();
    for (let seed = 1; seed <= 4000; seed++) {
      const rand = mulberry32(seed);
      const json = randomJson(rand, 5);
      for (const [name, decode] of DECODERS) {
        try {
          const out = decode(json);
          seen.set(`${name}:ok`, (seen.get(`${name}:ok`) ?? 0) + 1);
          // What decodes as a value must encode back to the same JSON.
          if (name === 'decodeValue') expect(encodeValue(out as never)).toEqual(json);
        } catch (err) {
          if (!OvsdbError.is(err)) throw new Error(`seed ${seed} ${name}: ${(err as Error).stack}`);
        }
      }
    }
    // Guard against a generator that never produces decodable input.
    expect(seen.get('decodeValue:ok')).toBeGreaterThan(100);
    expect(seen.get('decodeRow:ok')).toBeGreaterThan(100);
  });

  it('refuses __proto__ keys instead of replacing prototypes', () => {
    const json = JSON.parse('{"__proto__": ["uuid", "5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11"]}');
    expect(() => decodeRow(json)).toThrow(expect.objectContaining({ code: 'OVSDB_PROTOCOL' }));
    expect(() => decodeTableUpdates2(JSON.parse('{"__proto__": {}}'))).toThrow(
      expect.objectContaining({ code: 'OVSDB_PROTOCOL' }),
    );
  });
});
