import type { PortInfo } from '@antrea-ts/ovsdb';
import {
  ANTREA_TYPE_KEY,
  CONTAINER_ID_KEY,
  IFNAME_KEY,
  InterfaceKind,
  IP_KEY,
  MAC_KEY,
  NETNS_KEY,
  POD_NAME_KEY,
  POD_NAMESPACE_KEY,
} from '../ovs/external-ids.js';

/** A local Pod's interface: what the agent needs to serve CNI, flows and the API. */
export interface PodInterface {
  readonly containerId: string;
  readonly podName: string;
  readonly podNamespace: string;
  /** Name of the OVS port and of the veth end in the Node's namespace. */
  readonly hostIfName: string;
  /** Name of the veth end inside the Pod (CNI_IFNAME). */
  readonly ifName: string;
  readonly netns: string;
  /** IPv4 address with prefix, e.g. 10.10.1.5/24. */
  readonly ipCidr: string;
  readonly ip: string;
  readonly mac: string;
  readonly ofport: number;
  /** MAC of the Node-side veth end (known after ADD; not persisted). */
  readonly hostMac?: string;
}

/** external_ids of a Pod's OVS port (Antrea's keys plus the two CHECK/DEL need). */
export function podExternalIds(p: Omit<PodInterface, 'ofport' | 'hostIfName'>): Record<string, string> {
  return {
    [ANTREA_TYPE_KEY]: InterfaceKind.Container,
    [CONTAINER_ID_KEY]: p.containerId,
    [POD_NAME_KEY]: p.podName,
    [POD_NAMESPACE_KEY]: p.podNamespace,
    [IP_KEY]: p.ip,
    [MAC_KEY]: p.mac,
    [IFNAME_KEY]: p.ifName,
    [NETNS_KEY]: p.netns,
    'antrea-ts-ip-cidr': p.ipCidr,
  };
}

/** Rebuilds a Pod interface from its OVS port, or undefined for ports that are not Pods. */
export function podInterfaceFromPort(port: PortInfo): PodInterface | undefined {
  const iface = port.interfaces[0];
  const ids = { ...(iface?.externalIds ?? {}), ...port.externalIds };
  if (ids[ANTREA_TYPE_KEY] !== InterfaceKind.Container || !ids[CONTAINER_ID_KEY]) return undefined;
  const ip = ids[IP_KEY] ?? '';
  return {
    containerId: ids[CONTAINER_ID_KEY],
    podName: ids[POD_NAME_KEY] ?? '',
    podNamespace: ids[POD_NAMESPACE_KEY] ?? '',
    hostIfName: port.name,
    ifName: ids[IFNAME_KEY] ?? 'eth0',
    netns: ids[NETNS_KEY] ?? '',
    ipCidr: ids['antrea-ts-ip-cidr'] ?? `${ip}/32`,
    ip,
    mac: ids[MAC_KEY] ?? '',
    ofport: iface?.ofport ?? -1,
  };
}

/** Local Pod interfaces by container id (Antrea pkg/agent/interfacestore, containers only). */
export class InterfaceStore {
  private readonly byContainer = new Map<string, PodInterface>();
  private readonly listeners = new Set<() => void>();

  /** Called after every add or delete (the policy controller re-resolves applied-to Pods). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  static fromPorts(ports: readonly PortInfo[]): InterfaceStore {
    const store = new InterfaceStore();
    for (const p of ports) {
      const pod = podInterfaceFromPort(p);
      if (pod) store.add(pod);
    }
    return store;
  }

  add(p: PodInterface): void {
    this.byContainer.set(p.containerId, p);
    for (const l of this.listeners) l();
  }

  get(containerId: string): PodInterface | undefined {
    return this.byContainer.get(containerId);
  }

  delete(containerId: string): void {
    if (this.byContainer.delete(containerId)) for (const l of this.listeners) l();
  }

  list(): PodInterface[] {
    return [...this.byContainer.values()].sort(
      (a, b) => a.podNamespace.localeCompare(b.podNamespace) || a.podName.localeCompare(b.podName),
    );
  }

  get size(): number {
    return this.byContainer.size;
  }
}
