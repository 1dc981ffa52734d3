import {
  CONTENT_TYPE_PROTOBUF,
  CONTENT_TYPE_PROTOBUF_WATCH,
  CONTROLPLANE_KINDS,
  type ControlplaneKind,
  decodeControlplaneObject,
  encodeControlplaneObject,
  encodeWatchFrame,
} from '@antrea-ts/apis';
import { type ApiCodec, ApiError, type ApiObject } from '@antrea-ts/apiserver';

const KINDS: ReadonlySet<string> = new Set(CONTROLPLANE_KINDS);

/**
 * application/vnd.kubernetes.protobuf for the controlplane.antrea.io objects, as antrea-agent
 * negotiates it: each object is "k8s\0" + runtime.Unknown{apiVersion, kind, raw}, watch events
 * are length-prefixed meta/v1 WatchEvent frames. The kind comes from the object's `kind` field
 * (handlers set it), so watch ERROR events (meta/v1 Status) encode too. Kinds the protobuf
 * definitions do not cover (stats.antrea.io, system.antrea.io) are 406: clients of those APIs
 * (kubectl, antctl) ask for JSON.
 */
export const protobufCodec: ApiCodec = {
  mediaType: CONTENT_TYPE_PROTOBUF,
  streamContentType: CONTENT_TYPE_PROTOBUF_WATCH,
  encode(object: ApiObject): Uint8Array {
    const kind = object.kind;
    if (typeof kind !== 'string' || !KINDS.has(kind)) {
      throw ApiError.notAcceptable(['application/json']);
    }
    // The message codec reads only the fields of the message, so apiVersion/kind are ignored.
    return encodeControlplaneObject(kind as ControlplaneKind, object as never);
  },
  frameWatchEvent: (type, encodedObject) => encodeWatchFrame(type, encodedObject),
  decode(body: Uint8Array): unknown {
    const { kind, object } = decodeControlplaneObject(body);
    return { ...(object as object), kind };
  },
};
