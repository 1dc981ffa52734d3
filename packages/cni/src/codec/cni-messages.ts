import { decodeUtf8, expectWire, ProtoWriter, readFields, WIRE_LEN, WIRE_VARINT } from './protowire.js';

// The messages of Antrea's pkg/apis/cni/v1beta1/cni.proto, as plain objects, with pure encode and
// decode functions. Field numbers are the contract; keep them in step with cni.proto.

export const CNI_SERVICE_NAME = 'antrea_io.antrea.pkg.apis.cni.v1beta1.Cni';
export type CniRpcMethod = 'CmdAdd' | 'CmdCheck' | 'CmdDel';

export function cniMethodPath(method: CniRpcMethod): string {
  return `/${CNI_SERVICE_NAME}/${method}`;
}

export interface CniCmdArgs {
  containerId: string;
  netns: string;
  ifname: string;
  args: string;
  path: string;
  /** The network configuration JSON exactly as the runtime wrote it on stdin. */
  networkConfiguration: Uint8Array;
}

export interface CniCmdRequest {
  cniArgs?: CniCmdArgs;
}

/** google.protobuf.Any, kept opaque. */
export interface AnyDetail {
  typeUrl: string;
  value: Uint8Array;
}

export interface CniRpcError {
  /** Antrea ErrorCode enum value. */
  code: number;
  message: string;
  details: AnyDetail[];
}

export interface CniCmdResponse {
  cniResult: Uint8Array;
  /** Present when the agent failed the command; proto presence, so code 0 still means failure. */
  error?: CniRpcError;
}

const EMPTY = new Uint8Array(0);

/** A plain Uint8Array copy: callers may hand us a Buffer (grpc-js) and keep reusing its memory. */
function copyBytes(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}

export function encodeCniCmdArgs(a: CniCmdArgs): Uint8Array {
  return new ProtoWriter()
    .string(1, a.containerId)
    .string(2, a.netns)
    .string(3, a.ifname)
    .string(4, a.args)
    .string(5, a.path)
    .bytes(6, a.networkConfiguration)
    .finish();
}

export function encodeCniCmdRequest(r: CniCmdRequest): Uint8Array {
  const w = new ProtoWriter();
  if (r.cniArgs) w.message(1, encodeCniCmdArgs(r.cniArgs));
  return w.finish();
}

export function decodeCniCmdArgs(buf: Uint8Array): CniCmdArgs {
  const what = 'CniCmdArgs';
  const a: CniCmdArgs = {
    containerId: '',
    netns: '',
    ifname: '',
    args: '',
    path: '',
    networkConfiguration: EMPTY,
  };
  for (const f of readFields(buf, what)) {
    if (f.field < 1 || f.field > 6) continue;
    expectWire(f, WIRE_LEN, what);
    if (f.field === 6) a.networkConfiguration = copyBytes(f.bytes);
    else {
      const s = decodeUtf8(f.bytes, what);
      if (f.field === 1) a.containerId = s;
      else if (f.field === 2) a.netns = s;
      else if (f.field === 3) a.ifname = s;
      else if (f.field === 4) a.args = s;
      else a.path = s;
    }
  }
  return a;
}

export function decodeCniCmdRequest(buf: Uint8Array): CniCmdRequest {
  const r: CniCmdRequest = {};
  for (const f of readFields(buf, 'CniCmdRequest')) {
    if (f.field !== 1) continue;
    expectWire(f, WIRE_LEN, 'CniCmdRequest');
    r.cniArgs = decodeCniCmdArgs(f.bytes);
  }
  return r;
}

function encodeAny(d: AnyDetail): Uint8Array {
  return new ProtoWriter().string(1, d.typeUrl).bytes(2, d.value).finish();
}

function decodeAny(buf: Uint8Array): AnyDetail {
  const d: AnyDetail = { typeUrl: '', value: EMPTY };
  for (const f of readFields(buf, 'Any')) {
    if (f.field === 1) {
      expectWire(f, WIRE_LEN, 'Any');
      d.typeUrl = decodeUtf8(f.bytes, 'Any');
    } else if (f.field === 2) {
      expectWire(f, WIRE_LEN, 'Any');
      d.value = copyBytes(f.bytes);
    }
  }
  return d;
}

export function encodeCniRpcError(e: CniRpcError): Uint8Array {
  const w = new ProtoWriter().uint(1, e.code).string(2, e.message);
  for (const d of e.details) w.message(3, encodeAny(d));
  return w.finish();
}

export function decodeCniRpcError(buf: Uint8Array): CniRpcError {
  const e: CniRpcError = { code: 0, message: '', details: [] };
  for (const f of readFields(buf, 'Error')) {
    if (f.field === 1) {
      expectWire(f, WIRE_VARINT, 'Error');
      e.code = f.int;
    } else if (f.field === 2) {
      expectWire(f, WIRE_LEN, 'Error');
      e.message = decodeUtf8(f.bytes, 'Error');
    } else if (f.field === 3) {
      expectWire(f, WIRE_LEN, 'Error');
      e.details.push(decodeAny(f.bytes));
    }
  }
  return e;
}

export function encodeCniCmdResponse(r: CniCmdResponse): Uint8Array {
  const w = new ProtoWriter().bytes(1, r.cniResult);
  if (r.error) w.message(2, encodeCniRpcError(r.error));
  return w.finish();
}

export function decodeCniCmdResponse(buf: Uint8Array): CniCmdResponse {
  const r: CniCmdResponse = { cniResult: EMPTY };
  for (const f of readFields(buf, 'CniCmdResponse')) {
    if (f.field === 1) {
      expectWire(f, WIRE_LEN, 'CniCmdResponse');
      r.cniResult = copyBytes(f.bytes);
    } else if (f.field === 2) {
      expectWire(f, WIRE_LEN, 'CniCmdResponse');
      r.error = decodeCniRpcError(f.bytes);
    }
  }
  return r;
}
