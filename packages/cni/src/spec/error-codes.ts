// Numeric error codes. The CNI spec reserves 0-99 for well-known errors; Antrea's ErrorCode enum
// (pkg/apis/cni/v1beta1/cni.proto) reuses those numbers and adds its own from 100 up, so the agent's
// code goes into the CNI error JSON unchanged (pkg/cni/client.go does `Code: uint(resp.Error.Code)`).

/** Well-known CNI error codes (SPEC.md "Error", plus libcni's ErrInvalidNetNS and ErrInternal). */
export const CniCode = {
  UNKNOWN: 0,
  INCOMPATIBLE_CNI_VERSION: 1,
  UNSUPPORTED_FIELD: 2,
  UNKNOWN_CONTAINER: 3,
  INVALID_ENVIRONMENT_VARIABLES: 4,
  IO_FAILURE: 5,
  DECODING_FAILURE: 6,
  INVALID_NETWORK_CONFIG: 7,
  INVALID_NETNS: 8,
  TRY_AGAIN_LATER: 11,
  PLUGIN_NOT_AVAILABLE: 50,
  LIMITED_CONNECTIVITY: 51,
  /** What libcni's skel reports for a non-CNI error escaping a command. */
  INTERNAL: 999,
} as const;

/** Antrea's `ErrorCode` enum from cni.proto, as sent by the agent in CniCmdResponse.error.code. */
export const AntreaErrorCode = {
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
  // Never sent by the agent: the plugin itself uses them for gRPC-level failures.
  UNKNOWN_RPC_ERROR: 201,
  INCOMPATIBLE_API_VERSION: 202,
} as const;

/** gRPC status codes the plugin branches on. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;
