import { OvsdbProtocolError } from '../errors.js';
import { safeKey } from './value.js';

/**
 * The parts of a database schema (RFC 7047 section 3.2) a client needs: table and column names and
 * each column's shape, which decides how `update2` diffs apply (scalar, set or map).
 */

export type ColumnKind = 'scalar' | 'set' | 'map';

export interface ColumnSchema {
  readonly kind: ColumnKind;
  readonly keyType: string;
  readonly valueType?: string;
  readonly min: number;
  readonly max: number | 'unlimited';
  readonly refTable?: string;
}

export interface TableSchema {
  readonly columns: Readonly<Record<string, ColumnSchema>>;
  readonly isRoot: boolean;
}

export interface DatabaseSchema {
  readonly name: string;
  readonly version: string;
  readonly tables: Readonly<Record<string, TableSchema>>;
}

export function decodeSchema(json: unknown): DatabaseSchema {
  const s = asObject(json, 'schema');
  if (typeof s['name'] !== 'string') throw new OvsdbProtocolError('schema has no name');
  const tables: Record<string, TableSchema> = {};
  for (const [name, t] of Object.entries(asObject(s['tables'], 'schema tables'))) {
    const table = asObject(t, `table ${name}`);
    const columns: Record<string, ColumnSchema> = {};
    for (const [col, c] of Object.entries(asObject(table['columns'], `table ${name} columns`))) {
      columns[safeKey(col, 'column')] = decodeColumn(
        asObject(c, `column ${name}.${col}`)['type'],
        `${name}.${col}`,
      );
    }
    tables[safeKey(name, 'table')] = { columns, isRoot: table['isRoot'] === true };
  }
  return { name: s['name'], version: typeof s['version'] === 'string' ? s['version'] : '', tables };
}

function decodeColumn(type: unknown, where: string): ColumnSchema {
  if (typeof type === 'string') return { kind: 'scalar', keyType: type, min: 1, max: 1 };
  const t = asObject(type, `column ${where} type`);
  const key = baseType(t['key'], where);
  const value = t['value'] === undefined ? undefined : baseType(t['value'], where);
  const min = typeof t['min'] === 'number' ? t['min'] : 1;
  const max = t['max'] === 'unlimited' ? 'unlimited' : typeof t['max'] === 'number' ? t['max'] : 1;
  const kind: ColumnKind = value ? 'map' : min === 1 && max === 1 ? 'scalar' : 'set';
  const column: ColumnSchema = { kind, keyType: key.type, min, max };
  return {
    ...column,
    ...(value ? { valueType: value.type } : {}),
    ...(key.refTable ? { refTable: key.refTable } : {}),
  };
}

function baseType(json: unknown, where: string): { type: string; refTable?: string } {
  if (typeof json === 'string') return { type: json };
  const b = asObject(json, `column ${where} base type`);
  if (typeof b['type'] !== 'string') throw new OvsdbProtocolError(`column ${where} base type has no type`);
  return typeof b['refTable'] === 'string'
    ? { type: b['type'], refTable: b['refTable'] }
    : { type: b['type'] };
}

function asObject(json: unknown, what: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbProtocolError(`${what} is not an object`);
  }
  return json as Record<string, unknown>;
}
