import { createHash } from 'node:crypto';

function uuidBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new TypeError(`not a UUID: ${uuid}`);
  return Buffer.from(hex, 'hex');
}

function formatUUID(b: Buffer): string {
  const h = b.toString('hex');
  // join() gives a flat string; a template literal would leave a rope (names are kept by the million).
  return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20, 32)].join('-');
}

/** RFC 4122 version 5 (SHA-1, name-based) UUID. */
export function uuidV5(namespace: string, name: string): string {
  return uuidV5Bytes(uuidBytes(namespace), name);
}

function uuidV5Bytes(ns: Buffer, name: string): string {
  const digest = createHash('sha1').update(ns).update(name, 'utf8').digest();
  const b = digest.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return formatUUID(b);
}

/** Antrea's namespace UUID for names of internal objects (networkpolicy_controller.go uuidNamespace). */
export const ANTREA_UUID_NAMESPACE = 'e4f24a48-ca1f-4d5b-819c-ea7632b22115';

// Parsed once: every group name is a UUIDv5 under this namespace (an immutable constant).
const ANTREA_NAMESPACE_BYTES = uuidBytes(ANTREA_UUID_NAMESPACE);

/** Name of an AppliedToGroup/AddressGroup derived from a normalized selector (Antrea getNormalizedUID). */
export function normalizedUID(normalizedName: string): string {
  return uuidV5Bytes(ANTREA_NAMESPACE_BYTES, normalizedName);
}
