import { NsxApiError } from '../errors.js';
import type { NsxObject } from '../state/types.js';

export interface ListQuery {
  cursor?: string;
  page_size?: number;
  sort_by?: string;
  sort_ascending?: boolean;
  included_fields?: string;
}

/** Querystring schema shared by every list endpoint. */
export const listQuerySchema = {
  type: 'object',
  properties: {
    cursor: { type: 'string' },
    page_size: { type: 'integer', minimum: 0, maximum: 1000 },
    sort_by: { type: 'string' },
    sort_ascending: { type: 'boolean' },
    included_fields: { type: 'string' },
  },
} as const;

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^o:(\d+)$/.exec(text);
  if (!m) throw new NsxApiError('NSX_INVALID_REQUEST', `Invalid cursor "${cursor}"`);
  return Number(m[1]);
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/**
 * NSX list semantics: default page size 1000, opaque `cursor` present only when more pages follow,
 * `result_count` = total number of matching objects (NSX sets it on the first page; the sim sets it on
 * every page, which is a superset of that behaviour). Default order is by `id`.
 */
export function paginate(items: NsxObject[], q: ListQuery, idField = 'id'): NsxObject {
  const sortBy = q.sort_by ?? idField;
  const asc = q.sort_ascending ?? true;
  const sorted = [...items].sort((x, y) => {
    const c = compare(x[sortBy], y[sortBy]) || compare(x[idField], y[idField]);
    return asc ? c : -c;
  });
  const pageSize = q.page_size === undefined || q.page_size === 0 ? 1000 : q.page_size;
  const offset = q.cursor ? decodeCursor(q.cursor) : 0;
  let page = sorted.slice(offset, offset + pageSize);
  if (q.included_fields) {
    const fields = q.included_fields.split(',').map((f) => f.trim());
    page = page.map((o) => Object.fromEntries(fields.filter((f) => f in o).map((f) => [f, o[f]])));
  }
  const out: NsxObject = { results: page, result_count: sorted.length, sort_ascending: asc };
  if (q.sort_by) out['sort_by'] = q.sort_by;
  if (offset + pageSize < sorted.length) out['cursor'] = encodeCursor(offset + pageSize);
  return out;
}
