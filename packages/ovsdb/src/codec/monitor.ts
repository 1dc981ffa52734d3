import { OvsdbProtocolError } from '../errors.js';
import { type Condition, encodeConditions } from './operations.js';
import type { TableSchema } from './schema.js';
import {
  type Atom,
  atomEquals,
  decodeRow,
  OvsdbMap,
  OvsdbSet,
  type Row,
  safeKey,
  setItems,
} from './value.js';

/**
 * Monitor requests and the updates they produce: `monitor`/`update` (RFC 7047 4.1.5-4.1.6) and
 * `monitor_cond`/`update2` (ovsdb-server(7) 4.1.12-4.1.14).
 */

export interface MonitorSelect {
  initial?: boolean;
  insert?: boolean;
  delete?: boolean;
  modify?: boolean;
}

export interface MonitorRequest {
  columns?: readonly string[];
  select?: MonitorSelect;
}

export interface MonitorCondRequest extends MonitorRequest {
  /** Rows must match every condition; omitted means all rows. */
  where?: readonly Condition[];
}

export type MonitorRequests<R extends MonitorRequest = MonitorRequest> = Readonly<Record<string, R>>;

export function encodeMonitorRequests(
  requests: MonitorRequests<MonitorCondRequest>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [table, r] of Object.entries(requests)) {
    const req: Record<string, unknown> = {};
    if (r.columns !== undefined) req['columns'] = [...r.columns];
    if (r.select !== undefined) req['select'] = { ...r.select };
    if (r.where !== undefined) {
      req['where'] = encodeConditions(r.where);
    }
    out[table] = req;
  }
  return out;
}

/** One row change from `update`: `old` absent for inserts, `new` absent for deletes. */
export interface RowUpdate {
  old?: Row;
  new?: Row;
}

/** table name -> row UUID -> change */
export type TableUpdates = Record<string, Record<string, RowUpdate>>;

export type RowUpdate2 =
  | { kind: 'initial' | 'insert'; row: Row }
  | { kind: 'modify'; diff: Row }
  | { kind: 'delete' };

export type TableUpdates2 = Record<string, Record<string, RowUpdate2>>;

export function decodeTableUpdates(json: unknown): TableUpdates {
  const out: TableUpdates = {};
  for (const [table, rows] of entries(json, 'table-updates')) {
    const t: Record<string, RowUpdate> = {};
    for (const [id, update] of entries(rows, `table-update ${table}`)) {
      const u = objectOf(update, `row-update ${table}/${id}`);
      const ru: RowUpdate = {};
      if (u['old'] !== undefined) ru.old = decodeRow(u['old']);
      if (u['new'] !== undefined) ru.new = decodeRow(u['new']);
      t[id] = ru;
    }
    out[table] = t;
  }
  return out;
}

export function decodeTableUpdates2(json: unknown): TableUpdates2 {
  const out: TableUpdates2 = {};
  for (const [table, rows] of entries(json, 'table-updates2')) {
    const t: Record<string, RowUpdate2> = {};
    for (const [id, update] of entries(rows, `table-update2 ${table}`)) {
      const u = objectOf(update, `row-update2 ${table}/${id}`);
      if ('initial' in u) t[id] = { kind: 'initial', row: decodeRow(u['initial']) };
      else if ('insert' in u) t[id] = { kind: 'insert', row: decodeRow(u['insert']) };
      else if ('modify' in u) t[id] = { kind: 'modify', diff: decodeRow(u['modify']) };
      else if ('delete' in u) t[id] = { kind: 'delete' };
      else throw new OvsdbProtocolError(`row-update2 ${table}/${id} has no initial/insert/modify/delete`);
    }
    out[table] = t;
  }
  return out;
}

/**
 * Applies an update2 `modify` diff. Scalars are replaced; sets carry the symmetric difference;
 * maps carry keys to remove (same value as old), change (different value) or add (new key).
 * Needs the table schema because a one-element set and a scalar look alike on the wire.
 */
export function applyRowDiff(old: Readonly<Row>, diff: Readonly<Row>, table: TableSchema): Row {
  const next: Row = { ...old };
  for (const [column, change] of Object.entries(diff)) {
    const schema = table.columns[column];
    if (!schema || schema.kind === 'scalar') {
      next[column] = change;
    } else if (schema.kind === 'set') {
      const items = setItems(old[column]);
      for (const atom of setItems(change)) {
        const at = items.findIndex((a) => atomEquals(a, atom));
        if (at >= 0) items.splice(at, 1);
        else items.push(atom);
      }
      next[column] = new OvsdbSet(items);
    } else {
      const prev = old[column];
      const pairs: [Atom, Atom][] = prev instanceof OvsdbMap ? prev.entries.map(([k, v]) => [k, v]) : [];
      if (!(change instanceof OvsdbMap))
        throw new OvsdbProtocolError(`diff for map column ${column} is not a map`);
      for (const [k, v] of change.entries) {
        const at = pairs.findIndex(([pk]) => atomEquals(pk, k));
        if (at < 0) pairs.push([k, v]);
        else if (atomEquals(pairs[at]![1], v)) pairs.splice(at, 1);
        else pairs[at] = [k, v];
      }
      next[column] = new OvsdbMap(pairs);
    }
  }
  return next;
}

/**
 * Gives set columns one shape: the wire sends a one-element set as the bare atom, so without the
 * schema `5` and `["set",[5]]` would compare unequal. Scalars and maps are left as they are.
 */
export function normalizeRow(row: Readonly<Row>, table: TableSchema): Row {
  const out: Row = { ...row };
  for (const [column, value] of Object.entries(row)) {
    if (table.columns[column]?.kind === 'set' && !(value instanceof OvsdbSet))
      out[column] = new OvsdbSet(setItems(value));
  }
  return out;
}

function entries(json: unknown, what: string): [string, unknown][] {
  return Object.entries(objectOf(json, what)).map(([k, v]) => [safeKey(k, what), v]);
}

function objectOf(json: unknown, what: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbProtocolError(`${what} is not an object`);
  }
  return json as Record<string, unknown>;
}
