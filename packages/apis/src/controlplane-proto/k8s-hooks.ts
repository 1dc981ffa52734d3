// Kubernetes types whose JSON form differs from their protobuf form.
import { ProtoError } from '../k8s-proto/errors.js';
import type { MessageHook } from './message-codec.js';
import { int64ToNumber } from './message-codec.js';

type Obj = Record<string, unknown>;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * metav1.Time: RFC 3339 string in TS (like its JSON), Timestamp{seconds, nanos} on the wire. Go
 * (apimachinery time_proto.go) writes seconds only, nanos always 0, and a zero time as an empty
 * message; it ignores nanos when reading. We do the same, so sub-second precision is dropped.
 */
export const timeHook: MessageHook = {
  encode(value, where) {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms))
      throw new ProtoError('PROTO_ENCODE', `${where}: ${String(value)} is not an RFC 3339 time`);
    return { seconds: Math.floor(ms / 1000), nanos: 0 };
  },
  zero: () => ({}),
  decode(message) {
    if (!hasOwn.call(message, 'seconds') && !hasOwn.call(message, 'nanos')) return undefined;
    const seconds = hasOwn.call(message, 'seconds') ? int64ToNumber(message['seconds'], 'Time.seconds') : 0;
    // Go's JSON form: UTC, second precision, no fractional part.
    return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
  },
};

/** intstr.IntOrString: number | string in TS (like its JSON), {type, intVal, strVal} on the wire. */
export const intOrStringHook: MessageHook = {
  encode(value, where) {
    if (typeof value === 'string') return { type: 1, intVal: 0, strVal: value };
    if (Number.isInteger(value) && (value as number) >= -0x80000000 && (value as number) <= 0x7fffffff) {
      return { type: 0, intVal: value, strVal: '' };
    }
    throw new ProtoError('PROTO_ENCODE', `${where}: ${String(value)} is neither an int32 nor a string`);
  },
  zero: () => ({ type: 0, intVal: 0, strVal: '' }),
  decode(message) {
    const type = hasOwn.call(message, 'type') ? int64ToNumber(message['type'], 'IntOrString.type') : 0;
    if (type === 1) return (message['strVal'] as string | undefined) ?? '';
    if (type === 0) return (message['intVal'] as number | undefined) ?? 0;
    // Go's JSON marshaller fails the same way ("impossible IntOrString.Type").
    throw new Error(`IntOrString.type ${type} is neither 0 (int) nor 1 (string)`);
  },
};

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** metav1.FieldsV1: any JSON value in TS, its JSON text as bytes on the wire. */
export const fieldsV1Hook: MessageHook = {
  encode(value) {
    return { Raw: utf8.encode(JSON.stringify(value)) };
  },
  zero: () => ({}),
  decode(message: Obj) {
    const raw = message['Raw'] as Uint8Array | undefined;
    if (!raw || raw.length === 0) return undefined;
    return JSON.parse(utf8Decoder.decode(raw));
  },
};
