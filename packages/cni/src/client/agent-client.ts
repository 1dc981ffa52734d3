import {
  type CniCmdArgs,
  type CniRpcMethod,
  cniMethodPath,
  decodeCniCmdResponse,
  encodeCniCmdRequest,
} from '../codec/cni-messages.js';
import { type AgentRpcError, CniError, isAgentRpcError } from '../errors.js';
import { AntreaErrorCode, GrpcStatus } from '../spec/error-codes.js';
import { ANTREA_CNI_API_VERSION } from '../spec/versions.js';
import type { UnaryTransport } from '../transport/unary-transport.js';

export type AgentCommand = 'ADD' | 'CHECK' | 'DEL';

const METHOD: Readonly<Record<AgentCommand, CniRpcMethod>> = {
  ADD: 'CmdAdd',
  CHECK: 'CmdCheck',
  DEL: 'CmdDel',
};

/** What the plugin needs from the agent. */
export interface CniAgent {
  /** Runs one CNI command on the agent; resolves with the CNI result bytes (may be empty). */
  command(cmd: AgentCommand, args: CniCmdArgs): Promise<Uint8Array>;
}

/**
 * Turns a failed gRPC call into the CNI error Antrea's pkg/cni/client.go reports: UNIMPLEMENTED means
 * the agent speaks another version of the CNI API (202), UNAVAILABLE and DEADLINE_EXCEEDED are
 * transient (11, try again later), anything else is 201.
 */
export function cniErrorFromRpc(err: AgentRpcError): CniError {
  if (err.grpcCode === GrpcStatus.UNIMPLEMENTED) {
    return new CniError(
      AntreaErrorCode.INCOMPATIBLE_API_VERSION,
      `incompatible CNI API version between client (antrea-cni) and server (antrea-agent), client is using version ${ANTREA_CNI_API_VERSION}`,
      `service or method unimplemented by gRPC server: ${err.message}`,
      { cause: err },
    );
  }
  if (err.grpcCode === GrpcStatus.UNAVAILABLE || err.grpcCode === GrpcStatus.DEADLINE_EXCEEDED) {
    return new CniError(AntreaErrorCode.TRY_AGAIN_LATER, err.message, '', { cause: err });
  }
  return new CniError(AntreaErrorCode.UNKNOWN_RPC_ERROR, err.message, '', { cause: err });
}

/** The agent's CNI gRPC service through a UnaryTransport, with Antrea's error mapping. */
export class AgentClient implements CniAgent {
  constructor(
    private readonly transport: UnaryTransport,
    private readonly timeoutMs: number,
  ) {}

  async command(cmd: AgentCommand, args: CniCmdArgs): Promise<Uint8Array> {
    let reply: Uint8Array;
    try {
      reply = await this.transport.call(
        cniMethodPath(METHOD[cmd]),
        encodeCniCmdRequest({ cniArgs: args }),
        this.timeoutMs,
      );
    } catch (err) {
      if (isAgentRpcError(err)) throw cniErrorFromRpc(err);
      throw err;
    }
    let resp: ReturnType<typeof decodeCniCmdResponse>;
    try {
      resp = decodeCniCmdResponse(reply);
    } catch (err) {
      // grpc-go fails the call with codes.Internal when the reply does not unmarshal.
      throw new CniError(
        AntreaErrorCode.UNKNOWN_RPC_ERROR,
        `rpc error: code = Internal desc = grpc: failed to unmarshal the received message: ${(err as Error).message}`,
        '',
        { cause: err },
      );
    }
    // The agent's ErrorCode numbers are CNI codes already (1-11 well-known, 100+ Antrea's own).
    if (resp.error) throw new CniError(resp.error.code, resp.error.message);
    return resp.cniResult;
  }
}
