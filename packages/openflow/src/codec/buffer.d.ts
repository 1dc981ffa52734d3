/**
 * Growable big-endian writer. Encoders build messages with it and patch lengths afterwards,
 * because most OpenFlow structures carry their own length before variable-size content.
 */
export declare class Writer {
  private buf;
  private len;
  constructor(initial?: number);
  get length(): number;
  private ensure;
  u8(v: number): this;
  u16(v: number): this;
  u32(v: number): this;
  u64(v: bigint | number): this;
  /** Writes `v` as an unsigned big-endian integer of exactly `bytes` bytes. */
  uint(v: bigint, bytes: number): this;
  bytes(b: Uint8Array): this;
  zeros(n: number): this;
  /** Pads with zeros up to a multiple of `align` measured from `start`. */
  padTo(align: number, start?: number): this;
  setU16(offset: number, v: number): this;
  setU32(offset: number, v: number): this;
  finish(): Buffer;
}
/** Bounds-checked big-endian reader: every out-of-range read throws OfDecodeError, never RangeError. */
export declare class Reader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;
  constructor(buf: Buffer, start?: number, end?: number);
  get remaining(): number;
  need(n: number, what?: string): void;
  u8(): number;
  u16(): number;
  u32(): number;
  u64(): bigint;
  uint(bytes: number): bigint;
  bytes(n: number, what?: string): Buffer;
  skip(n: number): void;
  /** A sub-reader over the next `n` bytes; advances this reader past them. */
  sub(n: number, what?: string): Reader;
}
//# sourceMappingURL=buffer.d.ts.map
