import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, hasK8sMagic, K8S_PROTOBUF_MAGIC } from './envelope.js';
import { PROTO_ERROR_CODES, ProtoError } from './errors.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// Produced by k8s.io/apimachinery v0.34.4 protobuf.Serializer.Encode of
// metav1.Status{TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Message: "gone",
// Reason: "Expired", Code: 410} (bytes recorded from apimachinery v0.34.4).
const GO_STATUS_ENVELOPE =
  '6b387300' + // k8s\0
  '0a0c 0a027631 1206537461747573' + // typeMeta{apiVersion "v1", kind "Status"}
  '1223 0a060a0012001a00 12074661696c757265 1a04676f6e65 220745787069726564 309a03' + // raw (Status)
  '1a00 2200'; // contentEncoding "", contentType ""
const STATUS_RAW = '0a060a0012001a00 12074661696c757265 1a04676f6e65 220745787069726564 309a03';

describe('k8s protobuf envelope', () => {
  it('encodes byte-for-byte like apimachinery (golden from Go)', () => {
    const out = encodeEnvelope({ apiVersion: 'v1', kind: 'Status' }, hex(STATUS_RAW));
    expect(toHex(out)).toBe(GO_STATUS_ENVELOPE.replace(/\s/g, ''));
  });

  it('decodes the Go envelope', () => {
    const env = decodeEnvelope(hex(GO_STATUS_ENVELOPE));
    expect(env.typeMeta).toEqual({ apiVersion: 'v1', kind: 'Status' });
    expect(toHex(env.raw)).toBe(STATUS_RAW.replace(/\s/g, ''));
    expect(env.contentEncoding).toBe('');
    expect(env.contentType).toBe('');
  });

  it('matches runtime.Unknown as described by k8s-runtime.proto (field numbers and wire types)', () => {
    const protoPath = fileURLToPath(new URL('../../proto/k8s-runtime.proto', import.meta.url));
    const root = protobuf.parse(readFileSync(protoPath, 'utf8'), { keepCase: true }).root;
    const Unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const raw = Uint8Array.of(1, 2, 3, 0xff);
    const ours = encodeEnvelope({ apiVersion: 'controlplane.antrea.io/v1beta2', kind: 'NetworkPolicy' }, raw);
    const msg = Unknown.toObject(Unknown.decode(ours.subarray(4))) as Record<string, unknown>;
    expect(msg['typeMeta']).toEqual({ apiVersion: 'controlplane.antrea.io/v1beta2', kind: 'NetworkPolicy' });
    expect(Array.from(msg['raw'] as Uint8Array)).toEqual([1, 2, 3, 0xff]);
    // And the other way: a reflection-encoded Unknown (fields in another order, extra unknown field).
    const w = protobuf.Writer.create();
    w.uint32((2 << 3) | 2).bytes(raw);
    w.uint32((9 << 3) | 0).uint32(42); // unknown field, skipped like Go does
    w.uint32((1 << 3) | 2)
      .fork()
      .uint32((2 << 3) | 2)
      .string('K')
      .uint32((1 << 3) | 2)
      .string('g/v')
      .ldelim();
    const env = decodeEnvelope(Uint8Array.from([...K8S_PROTOBUF_MAGIC, ...w.finish()]));
    expect(env.typeMeta).toEqual({ apiVersion: 'g/v', kind: 'K' });
    expect(Array.from(env.raw)).toEqual([1, 2, 3, 0xff]);
  });

  it('handles a raw object larger than 127 bytes (multi-byte lengths)', () => {
    const raw = new Uint8Array(70000).map((_, i) => i % 251);
    const env = decodeEnvelope(encodeEnvelope({ apiVersion: 'a/b', kind: 'K' }, raw));
    expect(env.raw).toEqual(raw);
  });

  it.each([
    ['empty input', ''],
    ['wrong magic', '6b387301 0a00'],
    ['magic only', '6b387300'],
    ['truncated typeMeta', '6b387300 0a05 0a02'],
    ['wrong wire type for raw', '6b387300 1005'],
    ['invalid utf-8 kind', '6b387300 0a03 1201ff'],
    ['field number 0', '6b387300 0000'],
  ])('rejects %s with PROTO_DECODE', (_name, input) => {
    let caught: unknown;
    try {
      decodeEnvelope(hex(input));
    } catch (err) {
      caught = err;
    }
    expect(ProtoError.is(caught)).toBe(true);
    expect((caught as ProtoError).code).toBe('PROTO_DECODE');
  });

  it('recognizes the magic', () => {
    expect(hasK8sMagic(hex('6b38730000'))).toBe(true);
    expect(hasK8sMagic(hex('6b3873'))).toBe(false);
    expect(hasK8sMagic(hex('7b7d'))).toBe(false);
  });
});

describe('proto error catalogue', () => {
  it('every code constructs an error carrying that code', () => {
    for (const code of Object.values(PROTO_ERROR_CODES)) {
      const err = new ProtoError(code, 'x');
      expect(err.code).toBe(code);
      expect(ProtoError.is(err)).toBe(true);
      expect(err).toBeInstanceOf(Error);
    }
    expect(ProtoError.is(new Error('x'))).toBe(false);
  });
});
