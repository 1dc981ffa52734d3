import { IpfixError } from '../errors.js';
import { type InfoElement, VARIABLE_LENGTH } from '../registry.js';
import { readIpv4, readIpv6, writeIpv4, writeIpv6 } from './ip-address.js';

/**
 * A field's value: numbers for integers up to 32 bits and dateTimeSeconds, bigint for 64-bit
 * integers and dateTimeMilliseconds, text for strings and addresses, bytes for octetArray.
 */
export type FieldValue = number | bigint | string | Uint8Array;

const textEncoder = new TextEncoder();

/** Bytes the value takes in a data record, including a variable-length prefix. */
export function encodedLength(e: InfoElement, value: FieldValue): number {
  if (e.length !== VARIABLE_LENGTH) return e.length;
  const n = typeof value === 'string' ? Buffer.byteLength(value) : (value as Uint8Array).length;
  return n < 255 ? n + 1 : n + 3;
}

function fail(e: InfoElement, value: FieldValue): never {
  throw new IpfixError(
    'IPFIX_ENCODE',
    `value ${String(value)} does not fit ${e.name} (${e.type}, ${e.length} bytes)`,
  );
}

/** Writes `value` at `at`; returns the offset after it. Integers are big-endian (network order). */
export function writeField(buf: Buffer, at: number, e: InfoElement, value: FieldValue): number {
  if (e.length === VARIABLE_LENGTH) {
    // Strings are written in place (no intermediate bytes): most records carry a dozen of them.
    const n =
      typeof value === 'string' ? Buffer.byteLength(value) : value instanceof Uint8Array ? value.length : -1;
    if (n < 0 || n > 0xffff - 3) fail(e, value);
    if (n < 255) buf[at++] = n;
    else {
      buf[at++] = 255;
      buf.writeUInt16BE(n, at);
      at += 2;
    }
    if (n === 0) return at;
    if (typeof value === 'string') buf.write(value, at, n, 'utf8');
    else buf.set(value as Uint8Array, at);
    return at + n;
  }
  switch (e.type) {
    case 'unsigned8':
    case 'unsigned16':
    case 'unsigned32':
    case 'dateTimeSeconds':
      if (
        typeof value !== 'number' ||
        !Number.isInteger(value) ||
        value < 0 ||
        value >= 2 ** (8 * e.length)
      ) {
        fail(e, value);
      }
      buf.writeUIntBE(value, at, e.length);
      break;
    case 'signed32':
      if (typeof value !== 'number' || !Number.isInteger(value)) fail(e, value);
      buf.writeIntBE(value, at, e.length);
      break;
    case 'unsigned64':
    case 'dateTimeMilliseconds': {
      if (typeof value !== 'bigint' || value < 0n || value >= 1n << BigInt(8 * e.length)) fail(e, value);
      if (e.length === 8) buf.writeBigUInt64BE(value, at);
      else for (let i = e.length - 1, v = value; i >= 0; i--, v >>= 8n) buf[at + i] = Number(v & 0xffn);
      break;
    }
    case 'ipv4Address':
      if (typeof value !== 'string') fail(e, value);
      writeIpv4(buf, at, value);
      break;
    case 'ipv6Address':
      if (typeof value !== 'string') fail(e, value);
      writeIpv6(buf, at, value);
      break;
    case 'octetArray':
    case 'string': {
      const bytes = typeof value === 'string' ? textEncoder.encode(value) : value;
      if (!(bytes instanceof Uint8Array) || bytes.length !== e.length) fail(e, value);
      buf.set(bytes, at);
      break;
    }
  }
  return at + e.length;
}

/** Reads a field of `length` wire bytes at `at` (reduced-size integers are accepted). */
export function readField(buf: Buffer, at: number, e: InfoElement, length: number): FieldValue {
  switch (e.type) {
    case 'unsigned8':
    case 'unsigned16':
    case 'unsigned32':
    case 'dateTimeSeconds':
      return buf.readUIntBE(at, length);
    case 'signed32':
      return buf.readIntBE(at, length);
    case 'unsigned64':
    case 'dateTimeMilliseconds': {
      let v = 0n;
      for (let i = 0; i < length; i++) v = (v << 8n) | BigInt(buf[at + i]!);
      return v;
    }
    case 'ipv4Address':
      return readIpv4(buf, at);
    case 'ipv6Address':
      return readIpv6(buf, at);
    case 'string':
      return buf.toString('utf8', at, at + length);
    case 'octetArray':
      return new Uint8Array(buf.subarray(at, at + length));
  }
}
