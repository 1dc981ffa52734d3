import type { AntreaAgentInfo, AntreaControllerInfo, HeartbeatCondition } from '@antrea-ts/apis';

/**
 * Healthy: heartbeat fresh and every condition True. Degraded: fresh, but a connection condition
 * (controller, OVSDB, OpenFlow) is not True. Stale: the owner stopped rewriting its heartbeat.
 * Unknown: no heartbeat written yet.
 */
export type HealthState = 'Healthy' | 'Degraded' | 'Stale' | 'Unknown';

/** Antrea's agents and controller rewrite their heartbeat every 60 s: three missed beats is stale. */
export const DEFAULT_STALE_AFTER_MS = 180_000;

export interface HealthSummary {
  state: HealthState;
  /** Whole seconds since the last heartbeat; undefined without one. */
  heartbeatAgeSeconds: number | undefined;
  /** Condition types whose status is not True. */
  failing: string[];
}

export interface AgentSummary extends HealthSummary {
  node: string;
  version: string;
  localPods: number | undefined;
  /** Sum of the per-table flow counts the agent reports. */
  flows: number | undefined;
  nodeSubnets: string[];
  /** The Node has an open watch on the controller's API right now. */
  connected: boolean;
}

export interface ControllerSummary extends HealthSummary {
  version: string;
  connectedAgents: number;
  networkPolicies: number;
  addressGroups: number;
  appliedToGroups: number;
}

function summarize(
  conditions: readonly HeartbeatCondition<string>[],
  heartbeatType: string,
  nowMs: number,
  staleAfterMs: number,
): HealthSummary {
  const beat = conditions.find((c) => c.type === heartbeatType)?.lastHeartbeatTime;
  const beatMs = beat === undefined ? Number.NaN : Date.parse(beat);
  const failing = conditions.filter((c) => c.status !== 'True').map((c) => c.type);
  if (Number.isNaN(beatMs)) return { state: 'Unknown', heartbeatAgeSeconds: undefined, failing };
  // A clock slightly ahead of ours must not show a negative age.
  const age = Math.max(0, Math.floor((nowMs - beatMs) / 1000));
  let state: HealthState = 'Healthy';
  if (age * 1000 > staleAfterMs) state = 'Stale';
  else if (failing.length > 0) state = 'Degraded';
  return { state, heartbeatAgeSeconds: age, failing };
}

export function summarizeAgent(
  info: AntreaAgentInfo,
  opts: { nowMs: number; staleAfterMs: number; connectedNodes: ReadonlySet<string> },
): AgentSummary {
  const node = info.nodeRef?.name ?? info.metadata.name ?? '';
  const flowTable = info.ovsInfo?.flowTable;
  return {
    ...summarize(info.agentConditions ?? [], 'AgentHealthy', opts.nowMs, opts.staleAfterMs),
    node,
    version: info.version ?? '',
    localPods: info.localPodNum,
    flows: flowTable ? Object.values(flowTable).reduce((a, b) => a + b, 0) : undefined,
    nodeSubnets: info.nodeSubnets ?? [],
    connected: opts.connectedNodes.has(node),
  };
}

export function summarizeController(
  info: AntreaControllerInfo,
  opts: { nowMs: number; staleAfterMs: number },
): ControllerSummary {
  const c = info.networkPolicyControllerInfo ?? {};
  return {
    ...summarize(info.controllerConditions ?? [], 'ControllerHealthy', opts.nowMs, opts.staleAfterMs),
    version: info.version ?? '',
    connectedAgents: info.connectedAgentNum ?? 0,
    networkPolicies: c.networkPolicyNum ?? 0,
    addressGroups: c.addressGroupNum ?? 0,
    appliedToGroups: c.appliedToGroupNum ?? 0,
  };
}
