import type { Egress, EgressStatus, ExternalIPPool } from '@antrea-ts/apis';

/** A Node as Egress placement sees it. */
export interface EgressNodeInfo {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The Ready condition is True. */
  readonly ready: boolean;
  /** status.addresses InternalIP (IPv4). */
  readonly internalIp: string | undefined;
  /** The Node's own Egress IP cap (annotation node.antrea.io/max-egress-ips), when valid. */
  readonly maxEgressIps?: number | undefined;
}

/** Egresses, ExternalIPPools and Nodes from the API, and the Egress status writes of the agent. */
export interface EgressSource {
  /** Lists and watches; `changed` is called after every event. */
  start(changed: () => void): Promise<void>;
  stop(): Promise<void>;
  egresses(): Egress[];
  pool(name: string): ExternalIPPool | undefined;
  pools(): ExternalIPPool[];
  nodes(): EgressNodeInfo[];
  updateStatus(egress: Egress, status: EgressStatus): Promise<void>;
}
