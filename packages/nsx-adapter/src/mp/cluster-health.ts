import type { AntreaAgentInfo, AntreaControllerInfo } from '@antrea-ts/apis';
import type { ComponentHealth } from '../health.js';

/** Where the Antrea monitoring CRs come from (kube-apiserver in production, fakes in tests). */
export interface MonitoringSource {
  controllerInfo(): Promise<AntreaControllerInfo | undefined>;
  agentInfos(): Promise<AntreaAgentInfo[]>;
}

/** Antrea refreshes the monitoring CRs every 60 s; three missed heartbeats mean the component is gone. */
export const MONITORING_STALE_MS = 3 * 60_000;

function fresh(time: string | undefined, nowMs: number): boolean {
  const t = time ? Date.parse(time) : Number.NaN;
  return Number.isFinite(t) && nowMs - t <= MONITORING_STALE_MS;
}

/**
 * AntreaClusterInfo (research notes §2.2) from the monitoring CRs and the adapters' own health:
 * - controller UP when its ControllerHealthy heartbeat is fresh, DOWN when missing or stale;
 * - an agent is healthy when AgentHealthy is fresh and True and every connection condition is True,
 *   degraded when a connection condition is False, failed when its heartbeat is stale or missing;
 * - mp_adapter_status / ccp_adapter_status are passed in.
 * NSX derives the overall status itself (the simulator does the same).
 */
export function clusterInfo(
  controller: AntreaControllerInfo | undefined,
  agents: readonly AntreaAgentInfo[],
  mp: ComponentHealth,
  ccp: ComponentHealth,
  nowMs: number,
): Record<string, unknown> {
  const healthy = controller?.controllerConditions?.find((c) => c.type === 'ControllerHealthy');
  const controllerUp = healthy?.status === 'True' && fresh(healthy.lastHeartbeatTime, nowMs);
  let ok = 0;
  let degraded = 0;
  let failed = 0;
  for (const a of agents) {
    const conds = a.agentConditions ?? [];
    const main = conds.find((c) => c.type === 'AgentHealthy');
    if (main?.status !== 'True' || !fresh(main.lastHeartbeatTime, nowMs)) failed += 1;
    else if (conds.some((c) => c.status !== 'True')) degraded += 1;
    else ok += 1;
  }
  return {
    controller_status: {
      status: controllerUp ? 'UP' : 'DOWN',
      connected_agent_num: controller?.connectedAgentNum ?? 0,
      conditions: controller
        ? [
            {
              type: 'ControllerHealthy',
              status: controllerUp ? 'TRUE' : 'FALSE',
              ...(healthy?.lastHeartbeatTime ? { last_heartbeat_time: healthy.lastHeartbeatTime } : {}),
            },
          ]
        : [{ type: 'ControllerHealthy', status: 'FALSE', reason: 'AntreaControllerInfoMissing' }],
    },
    mp_adapter_status: { status: mp.status, conditions: mp.conditions },
    ccp_adapter_status: { status: ccp.status, conditions: ccp.conditions },
    agent_info: { healthy_agent_num: ok, degraded_agent_num: degraded, failed_agent_num: failed },
  };
}
