import { CniProtoDecodeError } from '../errors.js';

// Just enough of the protobuf wire format for the CNI contract's five small messages. The plugin binary
// uses this instead of the shared protobufjs codec in @antrea-ts/apis, which takes 75-150 ms to load
// on every Pod event; codec/contract.test.ts keeps the two byte-identical.

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const utf8 = new TextEncoder();

export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  private varint(value: number): void {
    // Negative int32 enums are sign-extended to 64 bits: ten bytes on the wire.
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v > 0x7fn) {
      out.push(Number((v & 0x7fn) | 0x80n));
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** proto3 scalar: omitted when zero. */
  uint(field: number, value: number): this {
    if (value !== 0) {
      this.tag(field, WIRE_VARINT);
      this.varint(value);
    }
    return this;
  }

  /** proto3 bytes: omitted when empty. */
  bytes(field: number, value: Uint8Array): this {
    if (value.length > 0) this.message(field, value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  /** An embedded message or bytes field, written even when empty (presence matters for messages). */
  message(field: number, encoded: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(encoded.length);
    this.push(encoded);
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let off = 0;
    for (const p of this.parts) {
      out.set(p, off);
      off += p.length;
    }
    return out;
  }
}

export interface ProtoField {
  readonly field: number;
  readonly wire: number;
  /** For varint fields. Values are truncated to 32 bits as int32 (all our varints are enums). */
  readonly int: number;
  /** For length-delimited fields. */
  readonly bytes: Uint8Array;
}

const EMPTY = new Uint8Array(0);
const utf8d = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8d.decode(bytes);
  } catch (err) {
    throw new CniProtoDecodeError(`${what}: invalid UTF-8`, { cause: err });
  }
}

/** Iterates the fields of one message, skipping nothing: unknown fields are the caller's to ignore. */
export function* readFields(buf: Uint8Array, what: string): Generator<ProtoField> {
  let pos = 0;
  const fail = (why: string): never => {
    throw new CniProtoDecodeError(`${what}: ${why} at offset ${pos}`);
  };
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= buf.length) fail('truncated varint');
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
    return fail('varint too long');
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) fail('field number 0');
    switch (wire) {
      case WIRE_VARINT:
        yield { field, wire, int: Number(BigInt.asIntN(32, varint())), bytes: EMPTY };
        break;
      case WIRE_LEN: {
        const len = Number(varint());
        if (pos + len > buf.length) fail('truncated length-delimited field');
        yield { field, wire, int: 0, bytes: buf.subarray(pos, pos + len) };
        pos += len;
        break;
      }
      case WIRE_I64:
      case WIRE_I32: {
        const n = wire === WIRE_I64 ? 8 : 4;
        if (pos + n > buf.length) fail('truncated fixed field');
        pos += n;
        yield { field, wire, int: 0, bytes: EMPTY };
        break;
      }
      default:
        fail(`unsupported wire type ${wire}`);
    }
  }
}

export function expectWire(f: ProtoField, wire: number, what: string): void {
  if (f.wire !== wire) throw new CniProtoDecodeError(`${what}: field ${f.field} has wire type ${f.wire}`);
}

export { WIRE_LEN, WIRE_VARINT };
