import { OfDecodeError, OfEncodeError } from '../errors.js';

/**
 * Growable big-endian writer. Encoders build messages with it and patch lengths afterwards,
 * because most OpenFlow structures carry their own length before variable-size content.
 */
export class Writer {
  private buf: Buffer;
  private len = 0;

  constructor(initial = 256) {
    // Unsafe allocation is fine: every byte below `len` is written explicitly before finish().
    this.buf = Buffer.allocUnsafe(initial);
  }

  get length(): number {
    return this.len;
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf.writeUInt8(v & 0xff, this.len);
    this.len += 1;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    this.buf.writeUInt16BE(v & 0xffff, this.len);
    this.len += 2;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32BE(v >>> 0, this.len);
    this.len += 4;
    return this;
  }

  u64(v: bigint | number): this {
    this.ensure(8);
    this.buf.writeBigUInt64BE(BigInt.asUintN(64, BigInt(v)), this.len);
    this.len += 8;
    return this;
  }

  /** Writes `v` as an unsigned big-endian integer of exactly `bytes` bytes. */
  uint(v: bigint, bytes: number): this {
    this.ensure(bytes);
    // Fast paths: most fields are 1-8 bytes; BigInt byte loops are slow on hot encode paths.
    if (bytes <= 6) {
      this.buf.writeUIntBE(Number(BigInt.asUintN(bytes * 8, v)), this.len, bytes);
    } else if (bytes === 8) {
      this.buf.writeBigUInt64BE(BigInt.asUintN(64, v), this.len);
    } else if (bytes === 16) {
      const x = BigInt.asUintN(128, v);
      this.buf.writeBigUInt64BE(x >> 64n, this.len);
      this.buf.writeBigUInt64BE(x & 0xffffffffffffffffn, this.len + 8);
    } else {
      let x = BigInt.asUintN(bytes * 8, v);
      for (let i = bytes - 1; i >= 0; i--) {
        this.buf[this.len + i] = Number(x & 0xffn);
        x >>= 8n;
      }
    }
    this.len += bytes;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  zeros(n: number): this {
    this.ensure(n);
    this.buf.fill(0, this.len, this.len + n);
    this.len += n;
    return this;
  }

  /** Pads with zeros up to a multiple of `align` measured from `start`. */
  padTo(align: number, start = 0): this {
    const rem = (this.len - start) % align;
    if (rem !== 0) this.zeros(align - rem);
    return this;
  }

  setU16(offset: number, v: number): this {
    if (v > 0xffff) throw new OfEncodeError(`length ${v} does not fit 16 bits`);
    this.buf.writeUInt16BE(v, offset);
    return this;
  }

  setU32(offset: number, v: number): this {
    this.buf.writeUInt32BE(v >>> 0, offset);
    return this;
  }

  /** The written bytes. A Writer is single-use: the result shares memory with it (no copy). */
  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** Bounds-checked big-endian reader: every out-of-range read throws OfDecodeError, never RangeError. */
export class Reader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    if (start < 0 || end > buf.length || start > end) {
      throw new OfDecodeError(`bad reader window ${start}..${end} of ${buf.length}`);
    }
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  need(n: number, what = 'field'): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new OfDecodeError(
        `truncated ${what}: need ${n} bytes at offset ${this.pos}, have ${this.remaining}`,
      );
    }
  }

  u8(): number {
    this.need(1);
    const v = this.buf.readUInt8(this.pos);
    this.pos += 1;
    return v;
  }

  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  uint(bytes: number): bigint {
    this.need(bytes);
    let v = 0n;
    for (let i = 0; i < bytes; i++) v = (v << 8n) | BigInt(this.buf[this.pos + i]!);
    this.pos += bytes;
    return v;
  }

  bytes(n: number, what = 'bytes'): Buffer {
    this.need(n, what);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  /** A sub-reader over the next `n` bytes; advances this reader past them. */
  sub(n: number, what = 'structure'): Reader {
    this.need(n, what);
    const r = new Reader(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }
}
