/**
 * Error catalogue of @antrea-ts/agent. Callers branch on `code`, never on message text.
 */
export const AGENT_ERROR_CODES = [
  /** Options or the Node object do not allow the agent to run (no podCIDR, bad encap mode...). */
  'AGENT_CONFIG_INVALID',
  /** A pipeline declaration is inconsistent (unknown table, duplicate name). */
  'AGENT_PIPELINE_INVALID',
  /** An OpenFlow request to ovs-vswitchd failed or the connection dropped. */
  'AGENT_OPENFLOW_FAILED',
  /** A host command (ip, iptables-restore, ethtool) failed. */
  'AGENT_COMMAND_FAILED',
  /** host-local IPAM refused or failed. */
  'AGENT_IPAM_FAILED',
  /** Creating or configuring a Pod interface failed. */
  'AGENT_INTERFACE_FAILED',
  /** CNI CHECK found the Pod's interface not as configured. */
  'AGENT_CHECK_FAILED',
  /** A CNI request carried bad input (config JSON, version, args). */
  'AGENT_CNI_BAD_REQUEST',
  /** The controller's policy API could not be watched or written to. */
  'AGENT_POLICY_WATCH_FAILED',
  /** A policy could not be realized (bad rule, priorities exhausted, switch refused the bundle). */
  'AGENT_POLICY_REALIZATION_FAILED',
  /** A Traceflow cannot be run as specified (unknown Pod, protocol, addresses). */
  'AGENT_TRACEFLOW_INVALID',
  /** A SupportBundleCollection's bundle could not be uploaded (unsupported scheme, server refused). */
  'AGENT_BUNDLE_UPLOAD_FAILED',
  /** A PacketCapture cannot be run as specified (protocol or ICMP type name, Pod without an address). */
  'AGENT_PACKETCAPTURE_INVALID',
  /** A PacketCapture's capture failed (tcpdump refused the filter or the interface, the file could not be written). */
  'AGENT_PACKETCAPTURE_FAILED',
  /** A DNS message (intercepted response or the agent's own query) could not be parsed. */
  'AGENT_DNS_MALFORMED',
  /** A TrafficControl's port could not be created or attached on the bridge (a missing device, say). */
  'AGENT_TRAFFIC_CONTROL_FAILED',
  /** NodePortLocal has no free Node port left in its range for a protocol. */
  'AGENT_NPL_PORTS_EXHAUSTED',
  /** The component was stopped while an operation waited. */
  'AGENT_STOPPED',
  /** The Flow Aggregator's CA ConfigMap or client certificate Secret could not be read (gRPC flow export). */
  'AGENT_FLOW_EXPORTER_TLS',
] as const;

export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

const MARK = Symbol.for('@antrea-ts/agent.error');

export class AgentError extends Error {
  readonly code: AgentErrorCode;
  readonly [MARK] = true;

  constructor(code: AgentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'AgentError';
  }

  static is(err: unknown): err is AgentError {
    return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[MARK] === true;
  }
}

export function agentError(code: AgentErrorCode, message: string, cause?: unknown): AgentError {
  return new AgentError(code, message, cause === undefined ? undefined : { cause });
}
