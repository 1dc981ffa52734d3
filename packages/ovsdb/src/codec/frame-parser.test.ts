import { describe, expect, it } from 'vitest';
import { OvsdbError, OvsdbParseError } from '../errors.js';
import { FrameParser } from './frame-parser.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function feedAll(parser: FrameParser, chunks: Uint8Array[]): unknown[] {
  const out: unknown[] = [];
  for (const c of chunks) {
    const r = parser.push(c);
    out.push(...r.messages);
    if (r.error) throw r.error;
  }
  return out;
}

const STREAM =
  '{"id":1,"result":["Open_vSwitch"],"error":null}' +
  '\n {"method":"echo","params":["a}b\\"{[",{"x":[1,{"y":"]"}]}],"id":"echo"}' +
  '{"id":null,"method":"update","params":["m",{"T":{"00000000-0000-0000-0000-000000000000":{"new":{"s":"日本語 ünï"}}}}]}';

const EXPECTED = [
  { id: 1, result: ['Open_vSwitch'], error: null },
  { method: 'echo', params: ['a}b"{[', { x: [1, { y: ']' }] }], id: 'echo' },
  {
    id: null,
    method: 'update',
    params: ['m', { T: { '00000000-0000-0000-0000-000000000000': { new: { s: '日本語 ünï' } } } }],
  },
];

describe('FrameParser', () => {
  it('splits concatenated objects with braces and escapes inside strings', () => {
    expect(feedAll(new FrameParser(), [bytes(STREAM)])).toEqual(EXPECTED);
  });

  it('gives the same objects whatever the chunk boundaries, including inside UTF-8 characters', () => {
    const all = bytes(STREAM);
    for (let size = 1; size <= 17; size++) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < all.length; i += size) chunks.push(all.slice(i, i + size));
      expect(feedAll(new FrameParser(), chunks)).toEqual(EXPECTED);
    }
    // Every single split point.
    for (let cut = 0; cut <= all.length; cut++) {
      expect(feedAll(new FrameParser(), [all.slice(0, cut), all.slice(cut)])).toEqual(EXPECTED);
    }
  });

  it('does not keep a reference to the caller buffer of an unfinished frame', () => {
    const parser = new FrameParser();
    const buf = bytes('{"a":"xy');
    expect(parser.push(buf).messages).toEqual([]);
    buf.fill(0x20);
    expect(parser.push(bytes('z"}')).messages).toEqual([{ a: 'xyz' }]);
  });

  it('reports a stream that ends inside a message as truncated', () => {
    const parser = new FrameParser();
    expect(parser.push(bytes('{"id":1}{"id":')).messages).toEqual([{ id: 1 }]);
    expect(parser.hasPartialFrame).toBe(true);
    const err = parser.end();
    expect(err).toBeInstanceOf(OvsdbParseError);
    expect(err?.code).toBe('OVSDB_PARSE');
  });

  it('ends cleanly between messages', () => {
    const parser = new FrameParser();
    parser.push(bytes('{"id":1}  \n'));
    expect(parser.end()).toBeUndefined();
  });

  it.each([
    ['garbage before a message', 'hello{"id":1}'],
    ['a top-level array', '[1,2]'],
    ['a top-level string', '"x"'],
    ['a closing brace with no opening', '}'],
    ['malformed JSON inside balanced braces', '{"a":}'],
    ['mismatched brackets', '{"a":[}]'],
    ['a bare word', '{"a":nope}'],
  ])('rejects %s with OVSDB_PARSE', (_name, input) => {
    const parser = new FrameParser();
    const r = parser.push(bytes(input));
    expect(r.error).toBeInstanceOf(OvsdbParseError);
    expect(r.error?.code).toBe('OVSDB_PARSE');
  });

  it('keeps messages that arrived before the garbage and stays failed afterwards', () => {
    const parser = new FrameParser();
    const r = parser.push(bytes('{"id":1} x {"id":2}'));
    expect(r.messages).toEqual([{ id: 1 }]);
    expect(r.error?.message).toMatch(/at byte 9/);
    const again = parser.push(bytes('{"id":3}'));
    expect(again.messages).toEqual([]);
    expect(again.error).toBe(r.error);
  });

  it('rejects invalid UTF-8', () => {
    const r = new FrameParser().push(Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
    expect(r.error?.message).toMatch(/UTF-8/);
  });

  it('bounds memory: an endless message is rejected once it passes maxFrameBytes', () => {
    const parser = new FrameParser({ maxFrameBytes: 1024 });
    let r = parser.push(bytes('{"a":"'));
    const filler = bytes('x'.repeat(100));
    let pushes = 0;
    while (!r.error && pushes < 100) {
      r = parser.push(filler);
      pushes++;
    }
    expect(r.error?.message).toMatch(/larger than 1024/);
    expect(pushes).toBeLessThanOrEqual(11);
  });

  it('bounds nesting depth', () => {
    const r = new FrameParser({ maxDepth: 16 }).push(bytes('{"a":' + '['.repeat(20)));
    expect(r.error?.message).toMatch(/nesting deeper than 16/);
  });

  it('rejects a complete message that is larger than the limit', () => {
    const r = new FrameParser({ maxFrameBytes: 16 }).push(bytes(`{"a":"${'x'.repeat(32)}"}`));
    expect(r.error?.code).toBe('OVSDB_PARSE');
  });

  it('reports stream offsets across chunks', () => {
    const parser = new FrameParser();
    parser.push(bytes('{"id":1}'));
    const r = parser.push(bytes('  !'));
    expect(r.error?.offset).toBe(10);
    expect(OvsdbError.is(r.error)).toBe(true);
  });
});
