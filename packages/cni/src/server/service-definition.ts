import type { ServiceDefinition } from '@grpc/grpc-js';
import {
  type CniCmdRequest,
  type CniCmdResponse,
  type CniRpcMethod,
  cniMethodPath,
  decodeCniCmdRequest,
  decodeCniCmdResponse,
  encodeCniCmdRequest,
  encodeCniCmdResponse,
} from '../codec/cni-messages.js';

export const CNI_RPC_METHODS: readonly CniRpcMethod[] = ['CmdAdd', 'CmdCheck', 'CmdDel'];

const toBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** service Cni of cni.proto for @grpc/grpc-js, on the package's own codec. */
export function cniServiceDefinition(methods: readonly CniRpcMethod[] = CNI_RPC_METHODS): ServiceDefinition {
  const def: Record<string, ServiceDefinition[string]> = {};
  for (const m of methods) {
    def[m] = {
      path: cniMethodPath(m),
      requestStream: false,
      responseStream: false,
      requestSerialize: (r: CniCmdRequest) => toBuffer(encodeCniCmdRequest(r)),
      requestDeserialize: (b: Buffer) => decodeCniCmdRequest(b),
      responseSerialize: (r: CniCmdResponse) => toBuffer(encodeCniCmdResponse(r)),
      responseDeserialize: (b: Buffer) => decodeCniCmdResponse(b),
    };
  }
  return def as ServiceDefinition;
}
