import type { V1Service } from '@kubernetes/client-node';
import type { ServiceProtocol } from '../openflow/features/service.js';
import type { ServicePortModel } from './model.js';

/**
 * What one proxied Service needs outside OVS with proxyAll (Antrea's route client and health
 * check server): its NodePorts DNATed into OVS, its VIPs routed to the gateway, and for
 * externalTrafficPolicy Local LoadBalancers the healthCheckNodePort answer.
 */
export interface ServiceHostState {
  /** `tcp:30080`-style keys, sorted. */
  readonly nodePorts: readonly NodePortKey[];
  /** ClusterIP and external IPs (LoadBalancer ingress, externalIPs), sorted. */
  readonly vips: readonly string[];
  /** healthCheckNodePort and this Node's endpoint count (distinct addresses), when served. */
  readonly healthCheck?: { readonly port: number; readonly localEndpoints: number };
}

export interface NodePortKey {
  readonly protocol: Lowercase<ServiceProtocol>;
  readonly port: number;
}

/** Told, after each proxier write, the Services whose state may differ (undefined: gone). */
export interface ServiceHostListener {
  servicesChanged(changes: ReadonlyMap<string, ServiceHostState | undefined>): void;
}

/** The host state of one Service from its service port models. */
export function serviceHostState(
  svc: V1Service,
  ports: ReadonlyMap<string, ServicePortModel>,
): ServiceHostState {
  const nodePorts = new Map<string, NodePortKey>();
  const vips = new Set<string>();
  const local = new Set<string>();
  let anyLocal = false;
  for (const p of ports.values()) {
    vips.add(p.clusterIp);
    for (const ip of p.externalIps ?? []) vips.add(ip);
    if (p.nodePort !== undefined) {
      const protocol = p.protocol.toLowerCase() as NodePortKey['protocol'];
      nodePorts.set(`${protocol}:${p.nodePort}`, { protocol, port: p.nodePort });
    }
    if (p.localEndpoints) {
      anyLocal = true;
      for (const ep of p.localEndpoints) local.add(ep.ip);
    }
  }
  const hc = svc.spec?.healthCheckNodePort;
  return {
    nodePorts: [...nodePorts.values()].sort(
      (a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol),
    ),
    vips: [...vips].sort(),
    ...(anyLocal && svc.spec?.type === 'LoadBalancer' && hc
      ? { healthCheck: { port: hc, localEndpoints: local.size } }
      : {}),
  };
}
