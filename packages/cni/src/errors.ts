// Errors of the antrea-cni plugin and its agent transport. Callers branch on `code`; a CniError also
// carries the numeric CNI error code that ends up in the error JSON kubelet reads.

/** Marks our errors so that `isCniError` works across duplicate copies of this module. */
const kCniError = Symbol.for('antrea-ts.cni.error');

export type CniErrorCodeString = 'CNI_ERROR' | 'CNI_AGENT_RPC_FAILED' | 'CNI_PROTO_DECODE_FAILED';

export abstract class CniPackageError extends Error {
  abstract readonly code: CniErrorCodeString;
  readonly [kCniError] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A failure to report to the container runtime as a CNI error result. `cniCode` is the number in the
 * error JSON: 1-99 are the spec's well-known codes, 100+ are Antrea's own (IPAM_FAILURE, ...).
 */
export class CniError extends CniPackageError {
  readonly code = 'CNI_ERROR' as const;
  constructor(
    readonly cniCode: number,
    readonly msg: string,
    readonly details = '',
    options?: { cause?: unknown },
  ) {
    super(details === '' ? msg : `${msg}; ${details}`, options);
  }
}

/**
 * A gRPC call to the agent that ended with a non-OK status. `grpcCode` is the gRPC status code;
 * `connectFailed` says nothing accepted the connection (no socket file, or no listener on it): the
 * agent is not serving, as opposed to failing or being slow.
 */
export class AgentRpcError extends CniPackageError {
  readonly code = 'CNI_AGENT_RPC_FAILED' as const;
  constructor(
    readonly grpcCode: number,
    readonly grpcMessage: string,
    readonly connectFailed: boolean,
    options?: { cause?: unknown },
  ) {
    // The Go client's error text (status.Error) so that operators see the messages they know.
    super(`rpc error: code = ${grpcCodeName(grpcCode)} desc = ${grpcMessage}`, options);
  }
}

/** Bytes from the wire that are not a valid message of the CNI protobuf contract. */
export class CniProtoDecodeError extends CniPackageError {
  readonly code = 'CNI_PROTO_DECODE_FAILED' as const;
}

export function isCniError(err: unknown): err is CniPackageError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[kCniError] === true;
}

// grpc-go's codes.Code String() names, used in the error text above.
const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

export function grpcCodeName(code: number): string {
  return GRPC_CODE_NAMES[code] ?? `Code(${code})`;
}

export function isAgentRpcError(err: unknown): err is AgentRpcError {
  return isCniError(err) && err.code === 'CNI_AGENT_RPC_FAILED';
}
