// Antrea's CNI gRPC contract (proto/antrea-cni-v1beta1.proto): message codecs and a service
// definition that @grpc/grpc-js accepts directly (Server.addService, makeGenericClientConstructor),
// built from protobufjs reflection so @grpc/proto-loader is not needed.
import protobuf from 'protobufjs/light.js';
import { int64ToNumber } from '../controlplane-proto/message-codec.js';
import { ProtoError, wrapDecode } from '../k8s-proto/errors.js';
import { cniDescriptor } from './generated/descriptor.js';

const PKG = 'antrea_io.antrea.pkg.apis.cni.v1beta1';
export const CNI_GRPC_SERVICE = `${PKG}.Cni`;
/** Version string antrea-cni and antrea-agent exchange (pkg/cni AntreaCNIVersion). */
export const ANTREA_CNI_VERSION = '1.0.0-beta.1';

/** ErrorCode enum values, as in the .proto (checked against it by a test). */
export const CNI_ERROR_CODES = {
  UNKNOWN: 0,
  INCOMPATIBLE_CNI_VERSION: 1,
  UNSUPPORTED_FIELD: 2,
  UNKNOWN_CONTAINER: 3,
  INVALID_ENVIRONMENT_VARIABLES: 4,
  IO_FAILURE: 5,
  DECODING_FAILURE: 6,
  INVALID_NETWORK_CONFIG: 7,
  TRY_AGAIN_LATER: 11,
  IPAM_FAILURE: 101,
  CONFIG_INTERFACE_FAILURE: 102,
  CHECK_INTERFACE_FAILURE: 103,
  UNKNOWN_RPC_ERROR: 201,
  INCOMPATIBLE_API_VERSION: 202,
} as const;

export interface CniCmdArgs {
  containerId: string;
  netns: string;
  ifname: string;
  args: string;
  path: string;
  /** Network configuration JSON exactly as the runtime passed it on stdin. */
  networkConfiguration: Uint8Array;
}

export interface CniCmdRequest {
  cniArgs?: CniCmdArgs;
}

/** google.protobuf.Any, kept opaque. */
export interface CniErrorDetail {
  typeUrl: string;
  value: Uint8Array;
}

export interface CniRpcError {
  /** A CNI_ERROR_CODES value; unknown numbers are passed through (proto3 open enum). */
  code: number;
  message: string;
  details: CniErrorDetail[];
}

export interface CniCmdResponse {
  /** CNI result JSON for stdout. */
  cniResult: Uint8Array;
  /** Present when the command failed; presence, not code, signals failure. */
  error?: CniRpcError;
}

export type CniMethod = 'CmdAdd' | 'CmdCheck' | 'CmdDel';
export const CNI_METHODS: readonly CniMethod[] = ['CmdAdd', 'CmdCheck', 'CmdDel'];

const root = protobuf.Root.fromJSON(cniDescriptor);
const RequestType = root.lookupType(`${PKG}.CniCmdRequest`);
const ResponseType = root.lookupType(`${PKG}.CniCmdResponse`);

type Obj = Record<string, unknown>;
const EMPTY = new Uint8Array(0);

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function copy(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? new Uint8Array(v) : EMPTY;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function encodeWith(type: protobuf.Type, value: Obj, what: string): Buffer {
  const problem = type.verify(value);
  if (problem) throw new ProtoError('PROTO_ENCODE', `cannot encode ${what}: ${problem}`);
  return asBuffer(type.encode(value).finish());
}

export function encodeCniCmdRequest(req: CniCmdRequest): Buffer {
  return encodeWith(RequestType, req.cniArgs ? { cniArgs: { ...req.cniArgs } } : {}, 'CniCmdRequest');
}

export function decodeCniCmdRequest(bytes: Uint8Array): CniCmdRequest {
  return wrapDecode('CniCmdRequest', () => {
    const m = RequestType.decode(bytes) as unknown as Obj;
    const a = m['cniArgs'] as Obj | null | undefined;
    if (!a) return {};
    return {
      cniArgs: {
        containerId: str(a['containerId']),
        netns: str(a['netns']),
        ifname: str(a['ifname']),
        args: str(a['args']),
        path: str(a['path']),
        networkConfiguration: copy(a['networkConfiguration']),
      },
    };
  });
}

export function encodeCniCmdResponse(res: CniCmdResponse): Buffer {
  const value: Obj = { cniResult: res.cniResult };
  if (res.error) {
    value['error'] = {
      code: res.error.code,
      message: res.error.message,
      // The well-known Any keeps its proto field names.
      details: res.error.details.map((d) => ({ type_url: d.typeUrl, value: d.value })),
    };
  }
  return encodeWith(ResponseType, value, 'CniCmdResponse');
}

export function decodeCniCmdResponse(bytes: Uint8Array): CniCmdResponse {
  return wrapDecode('CniCmdResponse', () => {
    const m = ResponseType.decode(bytes) as unknown as Obj;
    const out: CniCmdResponse = { cniResult: copy(m['cniResult']) };
    const e = m['error'] as Obj | null | undefined;
    if (e) {
      out.error = {
        code: int64ToNumber(e['code'] ?? 0, 'Error.code'),
        message: str(e['message']),
        details: ((e['details'] as Obj[] | undefined) ?? []).map((d) => ({
          typeUrl: str(d['type_url']),
          value: copy(d['value']),
        })),
      };
    }
    return out;
  });
}

/** Structurally a grpc-js MethodDefinition; no runtime dependency on grpc-js here. */
export interface CniGrpcMethodDefinition {
  path: string;
  requestStream: false;
  responseStream: false;
  requestSerialize: (value: CniCmdRequest) => Buffer;
  requestDeserialize: (bytes: Buffer) => CniCmdRequest;
  responseSerialize: (value: CniCmdResponse) => Buffer;
  responseDeserialize: (bytes: Buffer) => CniCmdResponse;
  originalName: string;
}

/**
 * The Cni service for grpc-js: `server.addService(cniServiceDefinition(), impl)` with impl keys
 * CmdAdd/CmdCheck/CmdDel (or cmdAdd/...), and `makeGenericClientConstructor(def, 'Cni')` for clients.
 * Paths are /antrea_io.antrea.pkg.apis.cni.v1beta1.Cni/<Method>, as the Go client dials them.
 */
export function cniServiceDefinition(): Record<CniMethod, CniGrpcMethodDefinition> {
  const service = root.lookupService(CNI_GRPC_SERVICE);
  const def = {} as Record<CniMethod, CniGrpcMethodDefinition>;
  for (const method of CNI_METHODS) {
    const m = service.methods[method];
    if (!m) throw new ProtoError('PROTO_ENCODE', `Cni service lacks ${method}`);
    def[method] = {
      path: `/${CNI_GRPC_SERVICE}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: encodeCniCmdRequest,
      requestDeserialize: decodeCniCmdRequest,
      responseSerialize: encodeCniCmdResponse,
      responseDeserialize: decodeCniCmdResponse,
      originalName: method.charAt(0).toLowerCase() + method.slice(1),
    };
  }
  return def;
}
