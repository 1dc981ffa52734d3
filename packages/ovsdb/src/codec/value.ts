import { OvsdbProtocolError } from '../errors.js';

/**
 * OVSDB values (RFC 7047 section 5.1). Sets and maps are classes rather than JS arrays or Maps
 * because on the wire a plain array is ambiguous (`["uuid", ...]` vs a set) and JS Maps compare
 * object keys by identity, which is wrong for UUID keys.
 */

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const NAMED_UUID_RE = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

export class Uuid {
  readonly uuid: string;
  constructor(uuid: string) {
    if (!UUID_RE.test(uuid)) throw new OvsdbProtocolError(`not a UUID: ${JSON.stringify(uuid)}`);
    this.uuid = uuid.toLowerCase();
  }
  toString(): string {
    return this.uuid;
  }
}

/** A reference to a row inserted earlier in the same transaction (`uuid-name` of an insert). */
export class NamedUuid {
  readonly name: string;
  constructor(name: string) {
    if (!NAMED_UUID_RE.test(name))
      throw new OvsdbProtocolError(`not a valid uuid-name: ${JSON.stringify(name)}`);
    this.name = name;
  }
  toString(): string {
    return this.name;
  }
}

export type Atom = string | number | boolean | Uuid | NamedUuid;

export class OvsdbSet {
  readonly items: readonly Atom[];
  constructor(items: readonly Atom[]) {
    this.items = items;
  }
}

export class OvsdbMap {
  readonly entries: readonly (readonly [Atom, Atom])[];
  constructor(entries: readonly (readonly [Atom, Atom])[]) {
    this.entries = entries;
  }
}

export type Value = Atom | OvsdbSet | OvsdbMap;

/** A row as columns to values; columns the server omitted are absent. */
export type Row = Record<string, Value>;

export const uuid = (s: string): Uuid => new Uuid(s);
export const namedUuid = (name: string): NamedUuid => new NamedUuid(name);
export const ovsSet = (...items: Atom[]): OvsdbSet => new OvsdbSet(items);
export const ovsMap = (record: Readonly<Record<string, Atom>>): OvsdbMap =>
  new OvsdbMap(Object.entries(record).map(([k, v]) => [k, v] as const));

// ---- encoding ---------------------------------------------------------------------------------

export function encodeAtom(atom: Atom): unknown {
  if (atom instanceof Uuid) return ['uuid', atom.uuid];
  if (atom instanceof NamedUuid) return ['named-uuid', atom.name];
  return atom;
}

export function encodeValue(value: Value): unknown {
  if (value instanceof OvsdbSet) return ['set', value.items.map(encodeAtom)];
  if (value instanceof OvsdbMap)
    return ['map', value.entries.map(([k, v]) => [encodeAtom(k), encodeAtom(v)])];
  return encodeAtom(value);
}

export function encodeRow(row: Readonly<Row>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) out[column] = encodeValue(value);
  return out;
}

// ---- decoding ---------------------------------------------------------------------------------

export function decodeAtom(json: unknown): Atom {
  switch (typeof json) {
    case 'string':
    case 'boolean':
      return json;
    case 'number':
      return json;
    case 'object': {
      if (Array.isArray(json) && json.length === 2 && typeof json[1] === 'string') {
        if (json[0] === 'uuid') return new Uuid(json[1]);
        if (json[0] === 'named-uuid') return new NamedUuid(json[1]);
      }
      break;
    }
  }
  throw new OvsdbProtocolError(`not an OVSDB atom: ${preview(json)}`);
}

export function decodeValue(json: unknown): Value {
  if (Array.isArray(json) && json.length === 2) {
    const [tag, body] = json as [unknown, unknown];
    if (tag === 'set') {
      if (!Array.isArray(body)) throw new OvsdbProtocolError(`set body is not an array: ${preview(json)}`);
      return new OvsdbSet(body.map(decodeAtom));
    }
    if (tag === 'map') {
      if (!Array.isArray(body)) throw new OvsdbProtocolError(`map body is not an array: ${preview(json)}`);
      return new OvsdbMap(
        body.map((pair: unknown) => {
          if (!Array.isArray(pair) || pair.length !== 2) {
            throw new OvsdbProtocolError(`map entry is not a [key, value] pair: ${preview(pair)}`);
          }
          return [decodeAtom(pair[0]), decodeAtom(pair[1])] as const;
        }),
      );
    }
  }
  return decodeAtom(json);
}

export function decodeRow(json: unknown): Row {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbProtocolError(`row is not an object: ${preview(json)}`);
  }
  const row: Row = {};
  for (const [column, value] of Object.entries(json)) row[safeKey(column, 'column')] = decodeValue(value);
  return row;
}

/**
 * Names from the wire become keys of plain objects; `__proto__` would replace the object's
 * prototype instead of adding a key. No OVSDB schema uses it, so refuse it.
 */
export function safeKey(key: string, what: string): string {
  if (key === '__proto__') throw new OvsdbProtocolError(`${what} name "__proto__" is not allowed`);
  return key;
}

// ---- reading values without a schema ------------------------------------------------------------

/**
 * The elements of a set column. The wire form of a one-element set is the bare atom (RFC 7047
 * 5.1), so a schema-less reader must accept both.
 */
export function setItems(value: Value | undefined): Atom[] {
  if (value === undefined) return [];
  if (value instanceof OvsdbSet) return [...value.items];
  if (value instanceof OvsdbMap) throw new OvsdbProtocolError('expected a set, got a map');
  return [value];
}

/** An optional (min 0, max 1) column: undefined when the set is empty. */
export function optionalAtom(value: Value | undefined): Atom | undefined {
  const items = setItems(value);
  if (items.length > 1) throw new OvsdbProtocolError(`expected at most one element, got ${items.length}`);
  return items[0];
}

/** A string-to-string map column as a plain record (the shape of external_ids, options, ...). */
export function mapToRecord(value: Value | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  if (!(value instanceof OvsdbMap)) {
    // An empty map can only be told apart from an empty set by the schema; both mean "nothing".
    if (value instanceof OvsdbSet && value.items.length === 0) return out;
    throw new OvsdbProtocolError('expected a map');
  }
  for (const [k, v] of value.entries) out[String(k)] = String(v);
  return out;
}

export function atomEquals(a: Atom, b: Atom): boolean {
  if (a instanceof Uuid) return b instanceof Uuid && a.uuid === b.uuid;
  if (a instanceof NamedUuid) return b instanceof NamedUuid && a.name === b.name;
  return a === b;
}

function preview(json: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(json) ?? String(json);
  } catch {
    text = String(json);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
