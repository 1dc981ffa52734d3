import { AntctlError } from '../errors.js';

/**
 * The part of kubectl's --sort-by JSONPath that antctl users write: a field path such as
 * `.metadata.name`, `{.sourceRef.name}` or `.rules[0].priority`.
 */
export function fieldPath(expr: string): (string | number)[] {
  let e = expr.trim();
  if (e.startsWith('{') && e.endsWith('}')) e = e.slice(1, -1);
  if (!e.startsWith('.')) {
    throw new AntctlError(
      'ANTCTL_USAGE',
      `invalid --sort-by "${expr}": want a JSONPath such as .metadata.name`,
    );
  }
  const parts: (string | number)[] = [];
  for (const m of e.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[1] !== undefined) parts.push(m[1]);
    else parts.push(Number(m[2]));
  }
  if (parts.length === 0) {
    throw new AntctlError(
      'ANTCTL_USAGE',
      `invalid --sort-by "${expr}": want a JSONPath such as .metadata.name`,
    );
  }
  return parts;
}

function lookup(obj: unknown, path: readonly (string | number)[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

/** Stable sort by a field path; numbers compare as numbers, missing values sort first (kubectl). */
export function sortByField<T>(items: readonly T[], expr: string): T[] {
  const path = fieldPath(expr);
  const keyed = items.map((item, i) => ({ item, i, v: lookup(item, path) }));
  keyed.sort((a, b) => {
    if (a.v === b.v) return a.i - b.i;
    if (a.v === undefined) return -1;
    if (b.v === undefined) return 1;
    if (typeof a.v === 'number' && typeof b.v === 'number') return a.v - b.v || a.i - b.i;
    const x = String(a.v);
    const y = String(b.v);
    return x < y ? -1 : x > y ? 1 : a.i - b.i;
  });
  return keyed.map((k) => k.item);
}
