// The envelope Kubernetes puts around every protobuf-encoded object: the 4-byte magic "k8s\0"
// followed by a runtime.Unknown message {typeMeta=1 {apiVersion=1, kind=2}, raw=2,
// contentEncoding=3, contentType=4}.
// Verified against k8s.io/apimachinery (commit eed236ce, July 2026):
// - pkg/runtime/serializer/protobuf/protobuf.go: Serializer.doEncode writes protoEncodingPrefix
//   {0x6b,0x38,0x73,0x00} then Unknown.NestedMarshalTo; Decode rejects data without the prefix and
//   data that is only the prefix ("empty body").
// - pkg/runtime/types_proto.go + generated.pb.go: Unknown always writes typeMeta, contentEncoding
//   and contentType (even when empty) and writes raw when non-nil; runtime.TypeMeta always writes
//   apiVersion (1) then kind (2). We write the same bytes, in the same field order.
import { ProtoError, wrapDecode } from './errors.js';
import {
  decodeUtf8,
  encodeUtf8,
  expectWireType,
  lenFieldSize,
  readFields,
  WIRE_LEN,
  writeLenField,
  writeVarint,
} from './wire.js';

export const K8S_PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);
export const CONTENT_TYPE_PROTOBUF = 'application/vnd.kubernetes.protobuf';
export const CONTENT_TYPE_PROTOBUF_WATCH = 'application/vnd.kubernetes.protobuf;stream=watch';

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/**
 * A decoded runtime.Unknown. `raw` is the message bytes of the object named by typeMeta; it is a view
 * into the decoded buffer (no copy), so do not mutate that buffer while `raw` is in use.
 */
export interface UnknownEnvelope {
  typeMeta: TypeMeta;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Wraps already-encoded message bytes as a complete Kubernetes protobuf object. */
export function encodeEnvelope(typeMeta: TypeMeta, raw: Uint8Array): Uint8Array {
  const apiVersion = encodeUtf8(typeMeta.apiVersion);
  const kind = encodeUtf8(typeMeta.kind);
  const typeMetaLen = lenFieldSize(apiVersion.length) + lenFieldSize(kind.length);
  // typeMeta + raw + two empty strings (tag + zero length each).
  const unknownLen = lenFieldSize(typeMetaLen) + lenFieldSize(raw.length) + 2 + 2;
  const out = new Uint8Array(K8S_PROTOBUF_MAGIC.length + unknownLen);
  out.set(K8S_PROTOBUF_MAGIC, 0);
  let pos = K8S_PROTOBUF_MAGIC.length;
  out[pos++] = (1 << 3) | WIRE_LEN;
  pos = writeVarint(out, pos, typeMetaLen);
  pos = writeLenField(out, pos, 1, apiVersion);
  pos = writeLenField(out, pos, 2, kind);
  pos = writeLenField(out, pos, 2, raw);
  out[pos++] = (3 << 3) | WIRE_LEN;
  out[pos++] = 0;
  out[pos++] = (4 << 3) | WIRE_LEN;
  out[pos++] = 0;
  return out;
}

export function hasK8sMagic(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === K8S_PROTOBUF_MAGIC[0] &&
    bytes[1] === K8S_PROTOBUF_MAGIC[1] &&
    bytes[2] === K8S_PROTOBUF_MAGIC[2] &&
    bytes[3] === K8S_PROTOBUF_MAGIC[3]
  );
}

/** Parses "k8s\0" + runtime.Unknown. Throws ProtoError PROTO_DECODE on anything malformed. */
export function decodeEnvelope(bytes: Uint8Array): UnknownEnvelope {
  if (!hasK8sMagic(bytes)) {
    throw new ProtoError('PROTO_DECODE', 'not a Kubernetes protobuf object: missing k8s\\0 prefix');
  }
  if (bytes.length === K8S_PROTOBUF_MAGIC.length) {
    throw new ProtoError('PROTO_DECODE', 'empty Kubernetes protobuf object');
  }
  return wrapDecode('runtime.Unknown', () => {
    const env: UnknownEnvelope = {
      typeMeta: { apiVersion: '', kind: '' },
      raw: new Uint8Array(0),
      contentEncoding: '',
      contentType: '',
    };
    readFields(bytes.subarray(K8S_PROTOBUF_MAGIC.length), (field, wireType, r) => {
      if (field < 1 || field > 4) return false;
      expectWireType(field, wireType, WIRE_LEN);
      if (field === 1) env.typeMeta = decodeTypeMeta(r.bytes());
      else if (field === 2) env.raw = r.bytes();
      else if (field === 3) env.contentEncoding = decodeUtf8(r.bytes());
      else env.contentType = decodeUtf8(r.bytes());
      return true;
    });
    return env;
  });
}

function decodeTypeMeta(bytes: Uint8Array): TypeMeta {
  const tm: TypeMeta = { apiVersion: '', kind: '' };
  readFields(bytes, (field, wireType, r) => {
    if (field !== 1 && field !== 2) return false;
    expectWireType(field, wireType, WIRE_LEN);
    if (field === 1) tm.apiVersion = decodeUtf8(r.bytes());
    else tm.kind = decodeUtf8(r.bytes());
    return true;
  });
  return tm;
}
