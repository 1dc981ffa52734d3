/**
 * A value as plain JSON data, printed the way Go's encoding/json prints the same objects: byte
 * slices (IPs) as base64, and what JSON has no form for made plain (bigint as a decimal string,
 * Set as an array, Map as an object).
 */
export function plainJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => {
      if (v instanceof Uint8Array && !Buffer.isBuffer(v))
        return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
      if (typeof v === 'bigint') return v.toString();
      if (v instanceof Set) return [...v];
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    }) ?? 'null',
  );
}

/** A bundle file's JSON: plainJson, indented, newline-terminated. */
export function bundleJson(value: unknown): string {
  return `${JSON.stringify(plainJson(value), null, 2)}\n`;
}
