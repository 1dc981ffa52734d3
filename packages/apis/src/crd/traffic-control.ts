import type { CustomResource, LabelSelector } from './meta.js';

// TrafficControl (crd.antrea.io/v1alpha2, agent feature gate TrafficControl): selected Pods'
// packets are mirrored or redirected to a port on their Node: an OVS internal port, a Node device,
// or a tunnel to a remote collector. Cluster-scoped; Antrea defines no status fields for it.

/** Pods a TrafficControl applies to; an appliedTo with neither selector selects nothing. */
export interface TrafficControlAppliedTo {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
}

export type TrafficControlDirection = 'Ingress' | 'Egress' | 'Both';
export type TrafficControlAction = 'Mirror' | 'Redirect';

/** A UDP tunnel (Geneve, VXLAN) to a remote receiver. */
export interface UDPTunnel {
  remoteIP: string;
  vni?: number;
  /** Default: 6081 for Geneve, 4789 for VXLAN. */
  destinationPort?: number;
}

export interface GRETunnel {
  remoteIP: string;
  key?: number;
}

export interface ERSPANTunnel {
  remoteIP: string;
  sessionID?: number;
  /** 1 (type II) or 2 (type III). */
  version: number;
  index?: number;
  dir?: number;
  hardwareID?: number;
}

/** Exactly one of the members: where packets go (targetPort) or come back from (returnPort). */
export interface TrafficControlPort {
  /** An OVS internal port, created by the agent when missing. */
  ovsInternal?: { name: string };
  /** A network device of the Node, attached to the bridge by the agent. */
  device?: { name: string };
  geneve?: UDPTunnel;
  vxlan?: UDPTunnel;
  gre?: GRETunnel;
  /** Target only (mirroring). */
  erspan?: ERSPANTunnel;
}

export interface TrafficControlSpec {
  appliedTo: TrafficControlAppliedTo;
  direction: TrafficControlDirection;
  action: TrafficControlAction;
  targetPort: TrafficControlPort;
  /** Where redirected packets come back to the bridge; only with action Redirect. */
  returnPort?: TrafficControlPort;
}

export interface TrafficControl extends CustomResource<'TrafficControl', 'crd.antrea.io/v1alpha2'> {
  spec: TrafficControlSpec;
}
