// Minimal DER encoder: only the primitives an X.509 v3 certificate needs. Node can sign and parse
// certificates but has no API to issue one, and spawning openssl would need key files on disk and
// whole-day validity; this keeps issuance in-process with second precision (rotation tests).

function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

export function tlv(tag: number, content: Uint8Array): Uint8Array {
  const len = lengthBytes(content.length);
  const out = new Uint8Array(1 + len.length + content.length);
  out[0] = tag;
  out.set(len, 1);
  out.set(content, 1 + len.length);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

export const sequence = (...items: Uint8Array[]): Uint8Array => tlv(0x30, concat(items));
export const set = (...items: Uint8Array[]): Uint8Array => tlv(0x31, concat(items));
export const octetString = (bytes: Uint8Array): Uint8Array => tlv(0x04, bytes);
export const utf8String = (s: string): Uint8Array => tlv(0x0c, new TextEncoder().encode(s));
export const bool = (v: boolean): Uint8Array => tlv(0x01, Uint8Array.of(v ? 0xff : 0));
/** Context-specific constructed tag [n]. */
export const explicit = (n: number, content: Uint8Array): Uint8Array => tlv(0xa0 | n, content);
/** Context-specific primitive tag [n] (GeneralName choices). */
export const implicitPrimitive = (n: number, content: Uint8Array): Uint8Array => tlv(0x80 | n, content);

/** A non-negative INTEGER from big-endian magnitude bytes. */
export function unsignedInteger(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  // A leading 1 bit would make the value negative in two's complement.
  const needsPad = trimmed.length === 0 || (trimmed[0]! & 0x80) !== 0;
  return tlv(0x02, needsPad ? concat([Uint8Array.of(0), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Uint8Array => unsignedInteger(Uint8Array.of(n));

export function bitString(bytes: Uint8Array, unusedBits = 0): Uint8Array {
  return tlv(0x03, concat([Uint8Array.of(unusedBits), bytes]));
}

export function oid(dotted: string): Uint8Array {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift(0x80 | (n & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 §4.1.2.5 requires. */
export function time(ms: number): Uint8Array {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const body = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  const year = d.getUTCFullYear();
  if (year < 2050) return tlv(0x17, new TextEncoder().encode(`${p(year % 100)}${body}`));
  return tlv(0x18, new TextEncoder().encode(`${p(year, 4)}${body}`));
}
