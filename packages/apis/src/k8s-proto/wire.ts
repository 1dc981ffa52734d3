// Minimal protobuf wire helpers for the hand-written k8s envelope and watch codecs. The envelope is
// tiny and fixed, so writing it by hand lets us size the output exactly and copy the object bytes
// once, which matters because the controller sends the same event to many watchers.
import protobuf from 'protobufjs/minimal.js';

export const WIRE_LEN = 2;

export function varintSize(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

/** Writes an unsigned varint (value < 2^53) at `pos`; returns the new position. */
export function writeVarint(out: Uint8Array, pos: number, value: number): number {
  while (value >= 0x80) {
    out[pos++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  out[pos++] = value;
  return pos;
}

/** Size of a length-delimited field (tag < 128) holding `len` bytes. */
export function lenFieldSize(len: number): number {
  return 1 + varintSize(len) + len;
}

/** Writes tag + length + bytes; returns the new position. */
export function writeLenField(out: Uint8Array, pos: number, field: number, bytes: Uint8Array): number {
  out[pos++] = (field << 3) | WIRE_LEN;
  pos = writeVarint(out, pos, bytes.length);
  out.set(bytes, pos);
  return pos + bytes.length;
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export function encodeUtf8(s: string): Uint8Array {
  return utf8.encode(s);
}

/** Go's proto decoder accepts any bytes in a string field, but our callers want valid text. */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8Strict.decode(bytes);
}

export type Reader = protobuf.Reader;

export function newReader(bytes: Uint8Array): protobuf.Reader {
  return protobuf.Reader.create(bytes);
}

/**
 * Iterates the fields of one message. `onField` must consume the value for fields it handles and
 * return true; unknown fields are skipped like Go does. Wire-type mismatches are the caller's check.
 */
export function readFields(
  bytes: Uint8Array,
  onField: (field: number, wireType: number, r: protobuf.Reader) => boolean,
): void {
  const r = newReader(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === 0) throw new Error('field number 0');
    if (!onField(field, wireType, r)) r.skipType(wireType);
  }
}

export function expectWireType(field: number, got: number, want: number): void {
  if (got !== want) throw new Error(`field ${field}: wire type ${got}, expected ${want}`);
}
