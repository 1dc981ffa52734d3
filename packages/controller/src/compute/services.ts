import type { Protocol, Service } from '@antrea-ts/apis';
import type { CrdNetworkPolicyPort, CrdNetworkPolicyProtocol } from '../inputs.js';

/** A K8s NetworkPolicyPort as it arrives (client-node model or plain JSON). */
export interface K8sPortLike {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

function protocolOf(p: string | undefined): Protocol {
  // An unset protocol means TCP (Antrea toAntreaProtocol).
  return (p ?? 'TCP') as Protocol;
}

/** toAntreaServices: undefined for "no ports" (all ports), plus whether a named port occurs. */
export function k8sServices(ports: readonly K8sPortLike[] | undefined): {
  services: Service[] | undefined;
  namedPort: boolean;
} {
  if (!ports || ports.length === 0) return { services: undefined, namedPort: false };
  let namedPort = false;
  const services = ports.map((p) => {
    const s: Service = { protocol: protocolOf(p.protocol) };
    if (p.port !== undefined && p.port !== null) {
      s.port = p.port;
      if (typeof p.port === 'string') namedPort = true;
    }
    if (p.endPort !== undefined && p.endPort !== null) s.endPort = p.endPort;
    return s;
  });
  return { services, namedPort };
}

/** toAntreaServicesForCRD: ports first, then ICMP/IGMP protocols. */
export function crdServices(
  ports: readonly CrdNetworkPolicyPort[] | undefined,
  protocols: readonly CrdNetworkPolicyProtocol[] | undefined,
): { services: Service[] | undefined; namedPort: boolean } {
  const { services: fromPorts, namedPort } = k8sServices(ports);
  const services = fromPorts ? [...fromPorts] : [];
  if (ports) {
    ports.forEach((p, i) => {
      const s = services[i]!;
      if (p.sourcePort !== undefined && p.sourcePort !== null) s.srcPort = p.sourcePort;
      if (p.sourceEndPort !== undefined && p.sourceEndPort !== null) s.srcEndPort = p.sourceEndPort;
    });
  }
  for (const p of protocols ?? []) {
    if (p.icmp) {
      const s: Service = { protocol: 'ICMP' };
      if (p.icmp.icmpType !== undefined && p.icmp.icmpType !== null) s.icmpType = p.icmp.icmpType;
      if (p.icmp.icmpCode !== undefined && p.icmp.icmpCode !== null) s.icmpCode = p.icmp.icmpCode;
      services.push(s);
    }
    if (p.igmp) {
      const s: Service = { protocol: 'IGMP' };
      if (p.igmp.igmpType !== undefined && p.igmp.igmpType !== null) s.igmpType = p.igmp.igmpType;
      if (p.igmp.groupAddress) s.groupAddress = p.igmp.groupAddress;
      services.push(s);
    }
  }
  return { services: services.length > 0 ? services : undefined, namedPort };
}
