import type { CustomResource } from './meta.js';
import type { PortProtocol } from './network-policy.js';

export interface ExternalEntityEndpoint {
  /** IPv4 or IPv6 address. */
  ip?: string;
  /** For example the VM's interface name. */
  name?: string;
}

export interface ExternalEntityNamedPort {
  protocol?: PortProtocol;
  /** The schema accepts int-or-string, but Antrea decodes it as an int32. */
  port?: number;
  name?: string;
}

export interface ExternalEntitySpec {
  endpoints?: ExternalEntityEndpoint[];
  ports?: ExternalEntityNamedPort[];
  /** Opaque name of the ExternalNode (agent) that handles this entity. */
  externalNode?: string;
}

/** A non-Pod workload (VM, bare-metal interface) that policies can select; crd.antrea.io/v1alpha2. */
export interface ExternalEntity extends CustomResource<'ExternalEntity', 'crd.antrea.io/v1alpha2'> {
  spec: ExternalEntitySpec;
}
