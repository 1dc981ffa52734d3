import type { ConditionStatus, CustomResource, ObjectReference } from './meta.js';

// Monitoring CRDs: the controller keeps one AntreaControllerInfo ("antrea-controller") and each
// agent keeps one AntreaAgentInfo named after its Node. Fields sit at the top level, beside
// metadata, with no spec/status split; they are heartbeats rewritten by their owner.

/** Name of the single AntreaControllerInfo object. */
export const ANTREA_CONTROLLER_INFO_NAME = 'antrea-controller';

export type AgentConditionType =
  | 'AgentHealthy'
  | 'ControllerConnectionUp'
  | 'OVSDBConnectionUp'
  | 'OpenflowConnectionUp';
export type ControllerConditionType = 'ControllerHealthy';

/** Heartbeat-style condition; AgentHealthy/ControllerHealthy are always True, the time is what matters. */
export interface HeartbeatCondition<T extends string> {
  type: T;
  status: ConditionStatus;
  /** RFC 3339; heartbeat interval is about 60 s. */
  lastHeartbeatTime: string;
  reason?: string;
  message?: string;
}

export interface NetworkPolicyControllerInfo {
  networkPolicyNum?: number;
  addressGroupNum?: number;
  appliedToGroupNum?: number;
}

export interface OVSInfo {
  version?: string;
  bridgeName?: string;
  /** Flow count per table name. */
  flowTable?: Record<string, number>;
}

export interface AgentNetworkInfo {
  transportInterface?: string;
  transportInterfaceMTU?: number;
  podMTU?: number;
  /** CIDR notation, at most one per IP family. */
  transportInterfaceIPs?: string[];
}

export interface AntreaAgentInfo extends CustomResource<'AntreaAgentInfo', 'crd.antrea.io/v1beta1'> {
  version?: string;
  podRef?: ObjectReference;
  nodeRef?: ObjectReference;
  nodeSubnets?: string[];
  ovsInfo?: OVSInfo;
  networkPolicyControllerInfo?: NetworkPolicyControllerInfo;
  localPodNum?: number;
  agentConditions?: HeartbeatCondition<AgentConditionType>[];
  apiPort?: number;
  /** Base64 PEM CA bundle for the agent API server's certificate. */
  apiCABundle?: string;
  /** "start-end". */
  nodePortLocalPortRange?: string;
  networkInfo?: AgentNetworkInfo;
}

export interface AntreaControllerInfo
  extends CustomResource<'AntreaControllerInfo', 'crd.antrea.io/v1beta1'> {
  version?: string;
  podRef?: ObjectReference;
  nodeRef?: ObjectReference;
  serviceRef?: ObjectReference;
  networkPolicyControllerInfo?: NetworkPolicyControllerInfo;
  connectedAgentNum?: number;
  controllerConditions?: HeartbeatCondition<ControllerConditionType>[];
  apiPort?: number;
}
