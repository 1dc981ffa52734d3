/**
 * external_ids keys Antrea writes on OVS ports and interfaces (pkg/agent/interfacestore and
 * pkg/agent/cniserver), so an agent restart (ours or Antrea's) can rebuild its interface store.
 */
export const ANTREA_TYPE_KEY = 'antrea-type';
export const InterfaceKind = {
  Container: 'container',
  Gateway: 'gateway',
  Tunnel: 'tunnel',
} as const;
export type InterfaceKind = (typeof InterfaceKind)[keyof typeof InterfaceKind];

export const CONTAINER_ID_KEY = 'container-id';
export const POD_NAME_KEY = 'pod-name';
export const POD_NAMESPACE_KEY = 'pod-namespace';
export const IP_KEY = 'ip-address';
export const MAC_KEY = 'attached-mac';
/** Our addition: the interface name inside the Pod and its netns, which CHECK and DEL need. */
export const IFNAME_KEY = 'antrea-ts-ifname';
export const NETNS_KEY = 'antrea-ts-netns';

/** Bridge external_ids key holding the agent's round number (flow cookies). */
export const ROUND_KEY = 'roundNum';
