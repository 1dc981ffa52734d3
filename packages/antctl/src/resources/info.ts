// Responses of the info-style commands and their tables, after Antrea's transform/* and
// pkg/agent/apis response types.
import type { AntreaAgentInfo, AntreaControllerInfo, HeartbeatCondition } from '@antrea-ts/apis';
import { summarize, type TableRows } from '../output/table.js';

/** controllerinfo.Response: AntreaControllerInfo without its object metadata. */
export function controllerInfoOut(info: AntreaControllerInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [
    'version',
    'podRef',
    'nodeRef',
    'serviceRef',
    'networkPolicyControllerInfo',
    'connectedAgentNum',
    'controllerConditions',
  ] as const) {
    if (info[k] !== undefined) out[k] = info[k];
  }
  return out;
}

/** Healthy / Unhealthy / Unknown from heartbeat conditions, as Antrea's tables show it. */
export function conditionSummary(conds: readonly HeartbeatCondition<string>[] | undefined): string {
  if (conds === undefined) return '';
  let s = 'Healthy';
  for (const c of conds) {
    if (c.status === 'Unknown') s = 'Unknown';
    if (c.status === 'False') return 'Unhealthy';
  }
  return s;
}

export function controllerInfoTable(info: AntreaControllerInfo): TableRows {
  const np = info.networkPolicyControllerInfo ?? {};
  return {
    header: [
      'POD',
      'NODE',
      'STATUS',
      'NETWORK-POLICIES',
      'ADDRESS-GROUPS',
      'APPLIED-TO-GROUPS',
      'CONNECTED-AGENTS',
    ],
    rows: [
      [
        `${info.podRef?.namespace ?? ''}/${info.podRef?.name ?? ''}`,
        info.nodeRef?.name ?? '',
        conditionSummary(info.controllerConditions),
        String(np.networkPolicyNum ?? 0),
        String(np.addressGroupNum ?? 0),
        String(np.appliedToGroupNum ?? 0),
        String(info.connectedAgentNum ?? 0),
      ],
    ],
    sortRows: true,
  };
}

export function agentInfoTable(info: AntreaAgentInfo): TableRows {
  const np = info.networkPolicyControllerInfo ?? {};
  return {
    header: [
      'POD',
      'NODE',
      'STATUS',
      'NODE-SUBNET',
      'NETWORK-POLICIES',
      'ADDRESS-GROUPS',
      'APPLIED-TO-GROUPS',
      'LOCAL-PODS',
    ],
    rows: [
      [
        `${info.podRef?.namespace ?? ''}/${info.podRef?.name ?? ''}`,
        info.nodeRef?.name ?? '',
        conditionSummary(info.agentConditions),
        summarize(info.nodeSubnets ?? []),
        String(np.networkPolicyNum ?? 0),
        String(np.addressGroupNum ?? 0),
        String(np.appliedToGroupNum ?? 0),
        String(info.localPodNum ?? 0),
      ],
    ],
    sortRows: true,
  };
}

/** agentapis.PodInterfaceResponse. */
export interface PodInterfaceJson {
  name?: string;
  podNamespace?: string;
  interfaceName?: string;
  ips?: string[];
  mac?: string;
  portUUID?: string;
  ofPort?: number;
  containerID?: string;
}

export function podInterfaceTable(list: readonly PodInterfaceJson[]): TableRows {
  return {
    header: ['NAMESPACE', 'NAME', 'INTERFACE-NAME', 'IP', 'MAC', 'PORT-UUID', 'OF-PORT', 'CONTAINER-ID'],
    rows: list.map((p) => [
      p.podNamespace ?? '',
      p.name ?? '',
      p.interfaceName ?? '',
      (p.ips ?? []).join(', '),
      p.mac ?? '',
      p.portUUID ?? '',
      String(p.ofPort ?? 0),
      // Antrea cuts container IDs to 11 characters in tables.
      (p.containerID ?? '').length > 12 ? (p.containerID ?? '').slice(0, 11) : (p.containerID ?? ''),
    ]),
    sortRows: true,
  };
}

/** agentapis.OVSFlowResponse: a one-column table with an empty header, flows uncut. */
export function ovsFlowsTable(list: readonly { flow?: string }[]): TableRows {
  return { header: [''], rows: list.map((f) => [f.flow ?? '']), sortRows: false };
}

/** Antrea's version.Response; field order is Antrea's. */
export interface VersionOut {
  agentVersion?: string;
  controllerVersion?: string;
  antctlVersion?: string;
}

/** k8s version.Info from the agent's /version, folded the way Antrea's AgentTransform does. */
export function agentVersionString(v: {
  gitVersion?: string;
  gitCommit?: string;
  gitTreeState?: string;
}): string {
  let s = v.gitVersion ?? '';
  if (v.gitCommit) s += `-${v.gitCommit}`;
  if (v.gitTreeState) s += `.${v.gitTreeState}`;
  return s;
}

export interface FeatureGateJson {
  component?: string;
  name?: string;
  status?: string;
  version?: string;
}

const FEATURE_GATE_SECTIONS: readonly [string, string][] = [
  ['agent', 'Antrea Agent Feature Gates'],
  ['agent-windows', 'Antrea Agent Feature Gates (Windows)'],
  ['controller', 'Antrea Controller Feature Gates'],
];

/** featuregates.output: one padded section per component, blank line between sections. */
export function formatFeatureGates(gates: readonly FeatureGateJson[]): string {
  let out = '';
  for (const [component, title] of FEATURE_GATE_SECTIONS) {
    const list = gates.filter((g) => g.component === component);
    if (list.length === 0) continue;
    if (out !== '') out += '\n';
    out += `${title}\n`;
    const nameW = Math.max('FEATUREGATE'.length, ...list.map((g) => (g.name ?? '').length)) + 5;
    const statusW = Math.max('STATUS'.length, ...list.map((g) => (g.status ?? '').length)) + 5;
    out += `${'FEATUREGATE'.padEnd(nameW)}${'STATUS'.padEnd(statusW)}VERSION\n`;
    for (const g of list)
      out += `${(g.name ?? '').padEnd(nameW)}${(g.status ?? '').padEnd(statusW)}${g.version ?? ''}\n`;
  }
  return out;
}
