// Table-driven mapping between JSON-shaped TS objects and protobuf bytes, on top of protobufjs
// reflection (its generated encoders/decoders do the wire work). The mapping adds what protobufjs
// does not know about Go: which fields Go always writes, which zero values a decoded object keeps,
// and the k8s types whose JSON form differs from their protobuf form (Time, IntOrString, FieldsV1).
import type protobuf from 'protobufjs';
import { ProtoError, wrapDecode } from '../k8s-proto/errors.js';

type Obj = Record<string, unknown>;

/** Converts one message type whose TS form is not its protobuf form. */
export interface MessageHook {
  /** TS value (never undefined) to a plain object protobufjs can encode. */
  encode(value: unknown, where: string): Obj;
  /** Plain object for a Go value field left unset in TS. */
  zero(): Obj;
  /** Decoded protobufjs message to its TS value; undefined drops the field. */
  decode(message: Obj): unknown;
}

export interface MessageCodecOptions {
  /** Full name (no leading dot) -> fields Go writes even when zero. */
  goAlwaysWritten: Readonly<Record<string, readonly string[]>>;
  /** Full name -> fields a decoded object keeps when zero or absent. */
  decodeKeepZero: Readonly<Record<string, readonly string[]>>;
  /** Full name -> conversion for types with a different TS shape. */
  hooks: Readonly<Record<string, MessageHook>>;
}

type Scalar = 'string' | 'bool' | 'int32' | 'uint32' | 'int64' | 'double' | 'bytes';
const SCALARS: ReadonlySet<string> = new Set<Scalar>([
  'string',
  'bool',
  'int32',
  'uint32',
  'int64',
  'double',
  'bytes',
]);

interface FieldPlan {
  readonly name: string;
  readonly where: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly scalar: Scalar | undefined;
  readonly hook: MessageHook | undefined;
  /** Filled in after all plans exist, so recursive types resolve. */
  sub: MessagePlan | undefined;
  readonly goAlways: boolean;
  readonly keepZero: boolean;
}

interface MessagePlan {
  readonly type: protobuf.Type;
  readonly fields: FieldPlan[];
}

const hasOwn = Object.prototype.hasOwnProperty;

export class MessageCodec {
  readonly #root: protobuf.Root;
  readonly #options: MessageCodecOptions;
  readonly #plans = new Map<string, MessagePlan>();

  constructor(root: protobuf.Root, options: MessageCodecOptions) {
    this.#root = root;
    this.#options = options;
  }

  /** Encodes `value` (a TS object) as the message `fullName`. Throws PROTO_ENCODE on bad input. */
  encode(fullName: string, value: unknown): Uint8Array {
    const plan = this.#plan(fullName);
    const wire = this.#toWire(plan, value, fullName);
    try {
      return plan.type.encode(wire).finish();
    } catch (err) {
      throw new ProtoError('PROTO_ENCODE', `cannot encode ${fullName}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /** Decodes bytes of the message `fullName` into its TS shape. Throws PROTO_DECODE. */
  decode(fullName: string, bytes: Uint8Array): unknown {
    const plan = this.#plan(fullName);
    return wrapDecode(fullName, () => this.#fromWire(plan, plan.type.decode(bytes) as unknown as Obj));
  }

  #tryType(fullName: string): protobuf.Type | undefined {
    try {
      return this.#root.lookupType(fullName);
    } catch {
      return undefined;
    }
  }

  #plan(fullName: string): MessagePlan {
    const cached = this.#plans.get(fullName);
    if (cached) return cached;
    const type = this.#tryType(fullName);
    if (!type) throw new ProtoError('PROTO_ENCODE', `unknown message type ${fullName}`);
    const always = new Set(this.#options.goAlwaysWritten[fullName] ?? []);
    const keep = new Set(this.#options.decodeKeepZero[fullName] ?? []);
    const plan: MessagePlan = { type, fields: [] };
    this.#plans.set(fullName, plan);
    for (const field of type.fieldsArray) {
      field.resolve();
      const isMap = field.map;
      const scalar = SCALARS.has(field.type) ? (field.type as Scalar) : undefined;
      const subName = field.resolvedType ? field.resolvedType.fullName.replace(/^\./, '') : undefined;
      if (
        isMap &&
        (field.type !== 'string' || (field as unknown as protobuf.MapField).keyType !== 'string')
      ) {
        throw new ProtoError(
          'PROTO_ENCODE',
          `${fullName}.${field.name}: only map<string,string> is supported`,
        );
      }
      if (!isMap && !scalar && !(field.resolvedType && 'fieldsArray' in field.resolvedType)) {
        throw new ProtoError(
          'PROTO_ENCODE',
          `${fullName}.${field.name}: unsupported field type ${field.type}`,
        );
      }
      const fp: FieldPlan = {
        name: field.name,
        where: `${fullName}.${field.name}`,
        repeated: field.repeated,
        map: isMap,
        scalar: isMap ? undefined : scalar,
        hook: subName && !isMap ? this.#options.hooks[subName] : undefined,
        sub: undefined,
        goAlways: always.has(field.name),
        keepZero: keep.has(field.name),
      };
      if (subName && !isMap && !fp.hook) fp.sub = this.#plan(subName);
      plan.fields.push(fp);
    }
    return plan;
  }

  #toWire(plan: MessagePlan, value: unknown, where: string): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) {
      throw new ProtoError('PROTO_ENCODE', `${where}: expected an object`);
    }
    const src = value as Obj;
    const out: Obj = {};
    for (const f of plan.fields) {
      const v = src[f.name];
      if (f.repeated) {
        if (v === undefined || v === null) continue;
        if (!Array.isArray(v)) throw new ProtoError('PROTO_ENCODE', `${f.where}: expected an array`);
        if (v.length > 0) out[f.name] = v.map((e) => this.#valueToWire(f, e));
        continue;
      }
      if (f.map) {
        if (v === undefined || v === null) continue;
        out[f.name] = sortedStringMap(v, f.where);
        continue;
      }
      if (v === undefined || v === null) {
        if (f.goAlways) out[f.name] = zeroWire(f);
        continue;
      }
      out[f.name] = this.#valueToWire(f, v);
    }
    return out;
  }

  #valueToWire(f: FieldPlan, v: unknown): unknown {
    if (f.hook) return f.hook.encode(v, f.where);
    if (f.sub) return this.#toWire(f.sub, v, f.where);
    checkScalar(f.scalar!, v, f.where);
    return v;
  }

  #fromWire(plan: MessagePlan, msg: Obj): Obj {
    const out: Obj = {};
    for (const f of plan.fields) {
      const present = hasOwn.call(msg, f.name);
      const v = present ? msg[f.name] : undefined;
      if (f.repeated) {
        const arr = v as unknown[] | undefined;
        if (arr && arr.length > 0) out[f.name] = arr.map((e) => this.#valueFromWire(f, e));
        else if (f.keepZero) out[f.name] = [];
        continue;
      }
      if (f.map) {
        const m = v as Record<string, string> | undefined;
        if (m && Object.keys(m).length > 0) out[f.name] = { ...m };
        else if (f.keepZero) out[f.name] = {};
        continue;
      }
      if (!present) {
        if (f.hook) continue;
        if (f.sub) {
          if (f.goAlways || f.keepZero) out[f.name] = this.#fromWire(f.sub, {});
        } else if (f.keepZero) {
          out[f.name] = zeroScalar(f.scalar!);
        }
        continue;
      }
      const decoded = this.#valueFromWire(f, v);
      // A Go value field cannot tell zero from unset; drop zeros unless the TS shape requires them.
      if (decoded === undefined) continue;
      if (f.scalar && f.goAlways && !f.keepZero && isZeroScalar(decoded)) continue;
      out[f.name] = decoded;
    }
    return out;
  }

  #valueFromWire(f: FieldPlan, v: unknown): unknown {
    if (f.hook) return f.hook.decode(v as Obj);
    if (f.sub) return this.#fromWire(f.sub, v as Obj);
    switch (f.scalar) {
      case 'int64':
        return int64ToNumber(v, f.where);
      case 'bytes':
        // protobufjs returns views into the input; copy so results never alias network buffers.
        return new Uint8Array(v as Uint8Array);
      default:
        return v;
    }
  }
}

function zeroWire(f: FieldPlan): unknown {
  if (f.hook) return f.hook.zero();
  if (f.sub) return zeroMessage(f.sub);
  return zeroScalar(f.scalar!);
}

function zeroMessage(plan: MessagePlan): Obj {
  const out: Obj = {};
  for (const f of plan.fields) if (f.goAlways && !f.repeated && !f.map) out[f.name] = zeroWire(f);
  return out;
}

function zeroScalar(s: Scalar): unknown {
  switch (s) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return new Uint8Array(0);
    default:
      return 0;
  }
}

function isZeroScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false || (v instanceof Uint8Array && v.length === 0);
}

function checkScalar(s: Scalar, v: unknown, where: string): void {
  let ok: boolean;
  switch (s) {
    case 'string':
      ok = typeof v === 'string';
      break;
    case 'bool':
      ok = typeof v === 'boolean';
      break;
    case 'int32':
      ok = Number.isInteger(v) && (v as number) >= -0x80000000 && (v as number) <= 0x7fffffff;
      break;
    case 'uint32':
      ok = Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;
      break;
    case 'int64':
      ok = Number.isSafeInteger(v);
      break;
    case 'double':
      ok = typeof v === 'number';
      break;
    case 'bytes':
      ok = v instanceof Uint8Array;
      break;
  }
  if (!ok) throw new ProtoError('PROTO_ENCODE', `${where}: ${describe(v)} is not a valid ${s}`);
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (v instanceof Uint8Array) return `bytes[${v.length}]`;
  return typeof v === 'object' ? (Array.isArray(v) ? 'array' : 'object') : String(v);
}

function sortedStringMap(v: unknown, where: string): Record<string, string> {
  if (typeof v !== 'object' || Array.isArray(v))
    throw new ProtoError('PROTO_ENCODE', `${where}: expected a map`);
  // Go marshals map entries in sorted key order; do the same so bytes are deterministic.
  const out: Record<string, string> = {};
  for (const k of Object.keys(v as Obj).sort()) {
    const val = (v as Obj)[k];
    if (typeof val !== 'string')
      throw new ProtoError('PROTO_ENCODE', `${where}[${k}]: value is not a string`);
    out[k] = val;
  }
  return out;
}

/** protobufjs yields int64 as a Long (when the long package is present) or a number. */
export function int64ToNumber(v: unknown, where: string): number {
  const n = typeof v === 'number' ? v : (v as { toNumber(): number }).toNumber();
  if (!Number.isSafeInteger(n)) throw new Error(`${where}: int64 value outside the safe integer range`);
  return n;
}
