import { OvsdbProtocolError, OvsdbTxnError } from '../errors.js';
import { decodeRow, encodeRow, encodeValue, type Row, Uuid, type Value } from './value.js';

/** Transact operations (RFC 7047 section 5.2) and the decoding of their results. */

export type ConditionFunction = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'includes' | 'excludes';
export type Condition = readonly [column: string, fn: ConditionFunction, value: Value];

export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';
export type Mutation = readonly [column: string, mutator: Mutator, value: Value];

export type Operation =
  | { op: 'insert'; table: string; row: Row; uuidName?: string }
  | { op: 'select'; table: string; where: readonly Condition[]; columns?: readonly string[] }
  | { op: 'update'; table: string; where: readonly Condition[]; row: Row }
  | { op: 'mutate'; table: string; where: readonly Condition[]; mutations: readonly Mutation[] }
  | { op: 'delete'; table: string; where: readonly Condition[] }
  | {
      op: 'wait';
      table: string;
      where: readonly Condition[];
      columns: readonly string[];
      until: '==' | '!=';
      rows: readonly Row[];
      /** Milliseconds the server may hold the transaction waiting; 0 or absent fails at once. */
      timeout?: number;
    }
  | { op: 'commit'; durable: boolean }
  | { op: 'abort' }
  | { op: 'comment'; comment: string }
  | { op: 'assert'; lock: string };

export interface OperationResult {
  /** insert: the new row's UUID. */
  uuid?: Uuid;
  /** select: the matching rows. */
  rows?: Row[];
  /** update, mutate, delete: rows affected. */
  count?: number;
}

export const encodeConditions = (where: readonly Condition[]): unknown[] =>
  where.map(([column, fn, value]) => [column, fn, encodeValue(value)]);
const encodeWhere = encodeConditions;

export function encodeOperation(op: Operation): Record<string, unknown> {
  switch (op.op) {
    case 'insert': {
      const out: Record<string, unknown> = { op: 'insert', table: op.table, row: encodeRow(op.row) };
      if (op.uuidName !== undefined) out['uuid-name'] = op.uuidName;
      return out;
    }
    case 'select': {
      const out: Record<string, unknown> = { op: 'select', table: op.table, where: encodeWhere(op.where) };
      if (op.columns !== undefined) out['columns'] = [...op.columns];
      return out;
    }
    case 'update':
      return { op: 'update', table: op.table, where: encodeWhere(op.where), row: encodeRow(op.row) };
    case 'mutate':
      return {
        op: 'mutate',
        table: op.table,
        where: encodeWhere(op.where),
        mutations: op.mutations.map(([column, mutator, value]) => [column, mutator, encodeValue(value)]),
      };
    case 'delete':
      return { op: 'delete', table: op.table, where: encodeWhere(op.where) };
    case 'wait': {
      const out: Record<string, unknown> = {
        op: 'wait',
        table: op.table,
        where: encodeWhere(op.where),
        columns: [...op.columns],
        until: op.until,
        rows: op.rows.map(encodeRow),
      };
      if (op.timeout !== undefined) out['timeout'] = op.timeout;
      return out;
    }
    case 'commit':
      return { op: 'commit', durable: op.durable };
    case 'abort':
      return { op: 'abort' };
    case 'comment':
      return { op: 'comment', comment: op.comment };
    case 'assert':
      return { op: 'assert', lock: op.lock };
  }
}

/**
 * Turns a transact reply into results, or throws the first failure. Per RFC 7047 5.2 an operation
 * that fails leaves an `{"error": ...}` object at its index (later ones are null or missing), and
 * a failed commit appears as one extra element after the last operation.
 */
export function decodeTransactResult(ops: readonly Operation[], json: unknown): OperationResult[] {
  if (!Array.isArray(json)) throw new OvsdbProtocolError('transact result is not an array');
  json.forEach((element, index) => {
    if (typeof element === 'object' && element !== null && 'error' in element) {
      const e = element as Record<string, unknown>;
      const error = typeof e['error'] === 'string' ? e['error'] : JSON.stringify(e['error']);
      const details = typeof e['details'] === 'string' ? e['details'] : undefined;
      throw new OvsdbTxnError(index, ops[index]?.op, error, details);
    }
  });
  if (json.length < ops.length) {
    throw new OvsdbProtocolError(`transact returned ${json.length} results for ${ops.length} operations`);
  }
  return ops.map((_, index) => decodeOperationResult(json[index]));
}

function decodeOperationResult(json: unknown): OperationResult {
  if (json === null || json === undefined) return {};
  if (typeof json !== 'object' || Array.isArray(json)) {
    throw new OvsdbProtocolError('operation result is not an object');
  }
  const r = json as Record<string, unknown>;
  const out: OperationResult = {};
  if (r['uuid'] !== undefined) {
    const u = r['uuid'];
    if (!Array.isArray(u) || u[0] !== 'uuid' || typeof u[1] !== 'string') {
      throw new OvsdbProtocolError('insert result uuid is malformed');
    }
    out.uuid = new Uuid(u[1]);
  }
  if (r['rows'] !== undefined) {
    if (!Array.isArray(r['rows'])) throw new OvsdbProtocolError('select result rows is not an array');
    out.rows = r['rows'].map(decodeRow);
  }
  if (r['count'] !== undefined) {
    if (typeof r['count'] !== 'number') throw new OvsdbProtocolError('result count is not a number');
    out.count = r['count'];
  }
  return out;
}
