// NodeIPAM errors carry fixed codes like the rest of the controller (errors.ts); kept beside the
// allocator so the package catalogue stays untouched by this feature.

export const NODE_IPAM_ERROR_CODES = [
  /** A cluster CIDR or node mask size is unusable. */
  'CONTROLLER_NODEIPAM_INVALID_CONFIG',
  /** Every podCIDR of a cluster CIDR is taken. */
  'CONTROLLER_NODEIPAM_EXHAUSTED',
  /** Writing a Node's podCIDRs failed. */
  'CONTROLLER_NODEIPAM_UPDATE_FAILED',
] as const;

export type NodeIpamErrorCode = (typeof NODE_IPAM_ERROR_CODES)[number];

export class NodeIpamError extends Error {
  readonly code: NodeIpamErrorCode;

  constructor(code: NodeIpamErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NodeIpamError';
    this.code = code;
  }
}
