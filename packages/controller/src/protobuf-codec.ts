import {
  CONTENT_TYPE_PROTOBUF,
  CONTENT_TYPE_PROTOBUF_WATCH,
  CONTROLPLANE_API_VERSION,
  CONTROLPLANE_KINDS,
  type ControlplaneKind,
  decodeControlplaneObject,
  encodeControlplane,
  K8S_PROTOBUF_MAGIC,
  type WatchEventType,
} from '@antrea-ts/apis';
import { type ApiCodec, ApiError, type ApiObject } from '@antrea-ts/apiserver';

const KINDS: ReadonlySet<string> = new Set(CONTROLPLANE_KINDS);
const utf8 = new TextEncoder();

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function writeVarint(out: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[pos++] = n;
  return pos;
}

/** A length-delimited field with a small tag: tag byte + varint length + bytes. */
function lenField(tag: number, bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + varintSize(bytes.length) + bytes.length);
  out[0] = tag;
  out.set(bytes, writeVarint(out, 1, bytes.length));
  return out;
}

// The fixed parts of every envelope and watch frame, built once per kind and event type: with
// hundreds of thousands of small objects per agent reconnect storm, re-encoding "NetworkPolicy"
// and "ADDED" to UTF-8 for each one was a visible share of the controller's CPU.
const envelopeHeads = new Map<string, Uint8Array>();
function envelopeHead(kind: string): Uint8Array {
  let head = envelopeHeads.get(kind);
  if (!head) {
    const apiVersion = kind === 'Status' ? 'v1' : CONTROLPLANE_API_VERSION;
    const typeMeta = new Uint8Array([
      ...lenField(0x0a, utf8.encode(apiVersion)),
      ...lenField(0x12, utf8.encode(kind)),
    ]);
    head = new Uint8Array([...K8S_PROTOBUF_MAGIC, ...lenField(0x0a, typeMeta)]);
    envelopeHeads.set(kind, head);
  }
  return head;
}

/** Size of "k8s\0" + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}. */
function envelopeSize(head: Uint8Array, rawLength: number): number {
  return head.length + 1 + varintSize(rawLength) + rawLength + 4;
}

/** Writes the envelope (as apimachinery writes it) at `pos` of `out`; returns the end. */
function writeEnvelope(out: Uint8Array, pos: number, head: Uint8Array, raw: Uint8Array): number {
  out.set(head, pos);
  pos += head.length;
  out[pos++] = 0x12;
  pos = writeVarint(out, pos, raw.length);
  out.set(raw, pos);
  pos += raw.length;
  out[pos++] = 0x1a;
  out[pos++] = 0;
  out[pos++] = 0x22;
  out[pos++] = 0;
  return pos;
}

function envelope(kind: string, raw: Uint8Array): Uint8Array {
  const head = envelopeHead(kind);
  const out = new Uint8Array(envelopeSize(head, raw.length));
  writeEnvelope(out, 0, head, raw);
  return out;
}

const typeFields = new Map<string, Uint8Array>();

/** RawExtension{raw} length of a watch frame carrying an object of `objectLength` bytes. */
function rawExtensionSize(objectLength: number): number {
  return 1 + varintSize(objectLength) + objectLength;
}

/** Size of a watch frame: 4-byte big-endian length + meta/v1 WatchEvent{type, object: RawExtension{raw}}. */
function frameSize(tf: Uint8Array, objectLength: number): number {
  const rawExtLen = rawExtensionSize(objectLength);
  return 4 + tf.length + 1 + varintSize(rawExtLen) + rawExtLen;
}

/** Writes a watch frame up to its object bytes at `pos` of `out`; returns where the object goes. */
function writeFrameHead(out: Uint8Array, pos: number, tf: Uint8Array, objectLength: number): number {
  const rawExtLen = rawExtensionSize(objectLength);
  const size = tf.length + 1 + varintSize(rawExtLen) + rawExtLen;
  out[pos] = (size >>> 24) & 0xff;
  out[pos + 1] = (size >>> 16) & 0xff;
  out[pos + 2] = (size >>> 8) & 0xff;
  out[pos + 3] = size & 0xff;
  pos += 4;
  out.set(tf, pos);
  pos += tf.length;
  out[pos++] = 0x12;
  pos = writeVarint(out, pos, rawExtLen);
  out[pos++] = 0x0a;
  return writeVarint(out, pos, objectLength);
}

function watchFrame(type: WatchEventType, object: Uint8Array): Uint8Array {
  const tf = typeField(type);
  const out = new Uint8Array(frameSize(tf, object.length));
  out.set(object, writeFrameHead(out, 0, tf, object.length));
  return out;
}

/** Bare protobuf message of a controlplane object (what runtime.Unknown.raw carries). */
export function encodeProtobufRaw(object: ApiObject): Uint8Array {
  const kind = object.kind;
  if (typeof kind !== 'string' || !KINDS.has(kind)) {
    throw ApiError.notAcceptable(['application/json']);
  }
  // The message codec reads only the fields of the message, so apiVersion/kind are ignored.
  return encodeControlplane(kind as ControlplaneKind, object as never);
}

function typeField(type: WatchEventType): Uint8Array {
  let f = typeFields.get(type);
  if (!f) {
    f = lenField(0x0a, utf8.encode(type));
    typeFields.set(type, f);
  }
  return f;
}

/** Size of the complete watch frame writeProtobufFrame writes. */
export function protobufFrameSize(type: WatchEventType, kind: string, rawLength: number): number {
  return frameSize(typeField(type), envelopeSize(envelopeHead(kind), rawLength));
}

/**
 * Writes one complete watch frame (length, WatchEvent, envelope, raw) at `pos` of `out` and
 * returns the end: the same bytes as frameWatchEvent(type, encode(obj)) without the two
 * intermediate allocations, for batches of initial events.
 */
export function writeProtobufFrame(
  out: Uint8Array,
  pos: number,
  type: WatchEventType,
  kind: string,
  raw: Uint8Array,
): number {
  const head = envelopeHead(kind);
  pos = writeFrameHead(out, pos, typeField(type), envelopeSize(head, raw.length));
  return writeEnvelope(out, pos, head, raw);
}

/**
 * application/vnd.kubernetes.protobuf for the controlplane.antrea.io objects, as antrea-agent
 * negotiates it: each object is "k8s\0" + runtime.Unknown{apiVersion, kind, raw}, watch events
 * are length-prefixed meta/v1 WatchEvent frames (byte-identical to apis' encodeEnvelope and
 * encodeWatchFrame; the unit test checks). The kind comes from the object's `kind` field
 * (handlers set it), so watch ERROR events (meta/v1 Status) encode too. Kinds the protobuf
 * definitions do not cover (stats.antrea.io, system.antrea.io) are 406: clients of those APIs
 * (kubectl, antctl) ask for JSON.
 */
export const protobufCodec: ApiCodec = {
  mediaType: CONTENT_TYPE_PROTOBUF,
  streamContentType: CONTENT_TYPE_PROTOBUF_WATCH,
  encode: (object: ApiObject): Uint8Array => envelope(object.kind as string, encodeProtobufRaw(object)),
  frameWatchEvent: watchFrame,
  decode(body: Uint8Array): unknown {
    const { kind, object } = decodeControlplaneObject(body);
    return { ...(object as object), kind };
  },
};
