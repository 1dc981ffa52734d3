/**
 * The agent's feature gates as `/featuregates` reports them (Antrea's names and maturity). Status
 * is what this agent does, not Antrea's default: a gate Antrea enables by default but that
 * Antrea-TS has not implemented is reported Disabled, so antctl never claims a feature that is absent.
 */
export interface FeatureGateInfo {
  readonly component: 'agent';
  readonly name: string;
  readonly status: 'Enabled' | 'Disabled';
  readonly version: 'ALPHA' | 'BETA' | 'GA';
}

const AGENT_GATES: readonly (readonly [string, FeatureGateInfo['version']])[] = [
  ['AntreaPolicy', 'BETA'],
  ['AntreaProxy', 'GA'],
  ['CleanupStaleUDPSvcConntrack', 'BETA'],
  ['Egress', 'BETA'],
  ['EndpointSlice', 'GA'],
  ['ExternalNode', 'ALPHA'],
  ['FlowExporter', 'ALPHA'],
  ['L7NetworkPolicy', 'ALPHA'],
  ['Multicast', 'BETA'],
  ['NetworkPolicyStats', 'BETA'],
  ['NodeNetworkPolicy', 'ALPHA'],
  ['NodePortLocal', 'GA'],
  ['PacketCapture', 'ALPHA'],
  ['PreferSameTrafficDistribution', 'ALPHA'],
  ['SecondaryNetwork', 'ALPHA'],
  ['ServiceExternalIP', 'BETA'],
  ['ServiceTrafficDistribution', 'GA'],
  ['SupportBundleCollection', 'ALPHA'],
  ['TopologyAwareHints', 'GA'],
  ['Traceflow', 'BETA'],
  ['TrafficControl', 'ALPHA'],
];

/** @param enabled the gates this agent runs with (e.g. AntreaPolicy when it enforces policies). */
export function agentFeatureGates(enabled: ReadonlySet<string>): FeatureGateInfo[] {
  return AGENT_GATES.map(([name, version]) => ({
    component: 'agent',
    name,
    status: enabled.has(name) ? 'Enabled' : 'Disabled',
    version,
  }));
}
