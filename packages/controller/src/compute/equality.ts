import type { GroupMember } from '@antrea-ts/apis';
import type { Span } from '../types.js';

export const EMPTY_SPAN: Span = new Set<string>();

export function sameSpan(a: Span, b: Span): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const n of a) if (!b.has(n)) return false;
  return true;
}

/** Member lists compare by identity: the engine caches one GroupMember object per Pod state. */
export function sameMembers(a: readonly GroupMember[], b: readonly GroupMember[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  if (a.length <= 8) {
    for (const m of a) if (!b.includes(m)) return false;
    return true;
  }
  // Members keep their order from one computation to the next: compare in place up to the first
  // difference, and when that member is gone altogether (one Pod changed) answer without building
  // a Set of the whole group.
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i === a.length) return true;
  if (!b.includes(a[i]!, i)) return false;
  const set = new Set(b.slice(i));
  for (let j = i; j < a.length; j++) if (!set.has(a[j]!)) return false;
  return true;
}

export function sameMembersByNode(
  a: ReadonlyMap<string, readonly GroupMember[]>,
  b: ReadonlyMap<string, readonly GroupMember[]>,
): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [node, list] of a) {
    const other = b.get(node);
    if (!other || !sameMembers(list, other)) return false;
  }
  return true;
}

/** Structural equality over JSON-like values, with Uint8Array support. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}
