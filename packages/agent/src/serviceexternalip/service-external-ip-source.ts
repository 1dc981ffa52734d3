import type { ExternalIPPool } from '@antrea-ts/apis';
import type { V1Service } from '@kubernetes/client-node';
import type { EgressNodeInfo } from '../egress/egress-source.js';

/** What the agent's ServiceExternalIP side reads from the API, and its one write. */
export interface ServiceExternalIPSource {
  /** Lists and watches; `changed` is called after every event. */
  start(changed: () => void): Promise<void>;
  stop(): Promise<void>;
  services(): V1Service[];
  /** Nodes with a ready endpoint of the Service (its EndpointSlices). */
  endpointNodes(service: V1Service): ReadonlySet<string>;
  pool(name: string): ExternalIPPool | undefined;
  nodes(): EgressNodeInfo[];
  /** Names the Node holding the IP in status.loadBalancer.ingress[0].hostname (as Antrea). */
  setIngressHostname(service: V1Service, hostname: string): Promise<void>;
}
