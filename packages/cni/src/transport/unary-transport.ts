/**
 * One unary gRPC call to the agent: sends one serialized request to `path` and resolves with the
 * serialized response, or rejects with an AgentRpcError carrying the gRPC status. The plugin depends
 * on this narrow shape so that the transport can be swapped (node:http2 for start-up cost, grpc-js
 * for comparison and as a fallback).
 */
export interface UnaryTransport {
  call(path: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
}
