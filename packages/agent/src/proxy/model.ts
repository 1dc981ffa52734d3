import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { ServiceEndpoint, ServiceProtocol } from '../openflow/features/service.js';
import { clusterEndpoints, type EndpointCandidate, nodeLocalEndpoints } from './topology.js';

/**
 * Which Services this Node proxies and to which endpoints (kube-proxy's and AntreaProxy's rules):
 * ClusterIPs of ClusterIP/NodePort/LoadBalancer Services, their LoadBalancer ingress IPs and
 * externalIPs, and with proxyAll their nodePorts, IPv4 only; endpoints from discovery.k8s.io/v1
 * EndpointSlices matched by port name and protocol, narrowed by traffic policy and zone hints.
 */

/** The label that hands a Service to another proxy (kube-proxy and Antrea skip it unless it names them). */
export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** Kubernetes' default ClientIP affinity timeout (3 hours). */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;

/** One service port as the proxier wants it on the switch, before a group id is chosen. */
export interface ServicePortModel {
  /** FlowCache owner key: service/<ns>/<name>/<port-name>/<proto>. */
  readonly owner: string;
  readonly clusterIp: string;
  readonly port: number;
  readonly protocol: ServiceProtocol;
  /** Sorted by IP then port, so equal sets compare equal. */
  readonly endpoints: readonly ServiceEndpoint[];
  readonly affinityTimeoutSeconds?: number;
  /** LoadBalancer ingress IPs and externalIPs, sorted; absent when none. */
  readonly externalIps?: readonly string[];
  /** proxyAll and a NodePort or LoadBalancer Service: its nodePort. */
  readonly nodePort?: number;
  /** proxyAll and externalTrafficPolicy Local: this Node's endpoints, for traffic from outside. */
  readonly localEndpoints?: readonly ServiceEndpoint[];
}

export interface ModelOptions {
  readonly nodeName: string;
  /** Antrea's skipServices: `<namespace>/<name>` or a ClusterIP. */
  readonly skipServices: readonly string[];
  /** Antrea's serviceProxyName: only Services labelled with it; empty: only unlabelled ones. */
  readonly serviceProxyName: string;
  /** Antrea's proxyAll: NodePorts too, and externalTrafficPolicy for traffic from outside. */
  readonly proxyAll: boolean;
  /** Antrea's proxyLoadBalancerIPs: LoadBalancer ingress IPs are VIPs here (not with ipMode Proxy). */
  readonly proxyLoadBalancerIPs: boolean;
  /** This Node's topology.kubernetes.io/zone label: endpoints hinted for it are preferred (see topology.ts). */
  readonly nodeZone?: string;
}

export const serviceKey = (ns: string | undefined, name: string | undefined): string =>
  `${ns ?? ''}/${name ?? ''}`;

/** What every FlowCache owner key of one Service's ports starts with. */
export const serviceOwnerPrefix = (svcKey: string): string => `service/${svcKey}/`;

export const servicePortOwner = (svcKey: string, portName: string, protocol: string): string =>
  `${serviceOwnerPrefix(svcKey)}${portName}/${protocol}`;

const isIpv4 = (ip: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(ip);

/** The IPv4 ClusterIP this Node proxies, or undefined when the Service is not for this proxier. */
export function proxiedClusterIp(svc: V1Service, opts: ModelOptions): string | undefined {
  const spec = svc.spec;
  if (!spec || spec.type === 'ExternalName') return undefined;
  const proxyName = svc.metadata?.labels?.[SERVICE_PROXY_NAME_LABEL];
  if ((proxyName ?? '') !== opts.serviceProxyName) return undefined;
  const ips = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
  const ip = ips.find(isIpv4);
  if (!ip) return undefined; // headless (None) or IPv6 only
  const key = serviceKey(svc.metadata?.namespace, svc.metadata?.name);
  if (opts.skipServices.includes(key) || opts.skipServices.includes(ip)) return undefined;
  return ip;
}

/**
 * A Service's external addresses this Node answers on: spec.externalIPs, and with
 * proxyLoadBalancerIPs the ingress IPs whose ipMode is not Proxy (Proxy: the load balancer rewrites
 * the destination itself, so the IP must not be short-circuited here). IPv4, sorted, unique.
 */
export function externalIpsOf(svc: V1Service, opts: Pick<ModelOptions, 'proxyLoadBalancerIPs'>): string[] {
  const ips = new Set((svc.spec?.externalIPs ?? []).filter(isIpv4));
  if (opts.proxyLoadBalancerIPs && svc.spec?.type === 'LoadBalancer') {
    for (const ingress of svc.status?.loadBalancer?.ingress ?? []) {
      if (ingress.ip && isIpv4(ingress.ip) && ingress.ipMode !== 'Proxy') ips.add(ingress.ip);
    }
  }
  return [...ips].sort();
}

const hasNodePorts = (svc: V1Service): boolean =>
  svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';

const protocolOf = (p: string | undefined): ServiceProtocol | undefined =>
  p === undefined || p === 'TCP' ? 'TCP' : p === 'UDP' || p === 'SCTP' ? p : undefined;

const compareEndpoints = (a: ServiceEndpoint, b: ServiceEndpoint): number =>
  a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1;

/**
 * Endpoints of one service port across its slices, with their readiness and zone hints; an address
 * listed by two slices counts once.
 */
function portCandidates(
  slices: readonly V1EndpointSlice[],
  portName: string,
  protocol: ServiceProtocol,
): EndpointCandidate[] {
  const byAddress = new Map<string, EndpointCandidate>();
  for (const slice of slices) {
    if (slice.addressType !== 'IPv4') continue;
    const sp = slice.ports?.find((p) => (p.name ?? '') === portName && protocolOf(p.protocol) === protocol);
    if (sp?.port === undefined) continue;
    for (const ep of slice.endpoints ?? []) {
      // Consumers use the first address only (the API allows one per endpoint in practice).
      const ip = ep.addresses[0];
      if (ip === undefined) continue;
      const c = ep.conditions ?? {};
      // A null condition means the endpoint is ready (and then serving), as the API documents.
      const ready = c.ready ?? true;
      const serving = c.serving ?? ready;
      byAddress.set(`${ip}:${sp.port}`, {
        ip,
        port: sp.port,
        ...(ep.nodeName !== undefined && { nodeName: ep.nodeName }),
        ready,
        servingTerminating: serving && (c.terminating ?? false),
        zoneHints: (ep.hints?.forZones ?? []).map((z) => z.name),
      });
    }
  }
  return [...byAddress.values()];
}

/** The chosen candidates as the switch wants them: address and port only, sorted. */
const toEndpoints = (chosen: readonly EndpointCandidate[]): ServiceEndpoint[] =>
  chosen.map(({ ip, port }) => ({ ip, port })).sort(compareEndpoints);

/** Every service port this Node proxies, by owner key. Slices are those labelled with the Service's name. */
export function servicePortModels(
  services: Iterable<V1Service>,
  slicesOf: (svcKey: string) => readonly V1EndpointSlice[],
  opts: ModelOptions,
): Map<string, ServicePortModel> {
  const out = new Map<string, ServicePortModel>();
  for (const svc of services) {
    const clusterIp = proxiedClusterIp(svc, opts);
    if (!clusterIp) continue;
    const spec = svc.spec ?? {};
    const key = serviceKey(svc.metadata?.namespace, svc.metadata?.name);
    const slices = slicesOf(key);
    const internalLocal = spec.internalTrafficPolicy === 'Local';
    const externalIps = externalIpsOf(svc, opts);
    // externalTrafficPolicy only matters for traffic from outside, which only proxyAll sees.
    const externalLocal = opts.proxyAll && spec.externalTrafficPolicy === 'Local';
    const affinity =
      spec.sessionAffinity === 'ClientIP'
        ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS)
        : undefined;
    for (const p of spec.ports ?? []) {
      const protocol = protocolOf(p.protocol);
      if (!protocol) continue;
      const name = p.name ?? '';
      const owner = servicePortOwner(key, name, protocol);
      const candidates = portCandidates(slices, name, protocol);
      const local = internalLocal || externalLocal ? nodeLocalEndpoints(candidates, opts.nodeName) : [];
      out.set(owner, {
        owner,
        clusterIp,
        port: p.port,
        protocol,
        endpoints: toEndpoints(internalLocal ? local : clusterEndpoints(candidates, opts.nodeZone)),
        ...(affinity !== undefined && { affinityTimeoutSeconds: affinity }),
        ...(externalIps.length > 0 && { externalIps }),
        ...(opts.proxyAll && hasNodePorts(svc) && p.nodePort !== undefined && { nodePort: p.nodePort }),
        ...(externalLocal && { localEndpoints: toEndpoints(local) }),
      });
    }
  }
  return out;
}
