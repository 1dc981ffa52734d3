import type { ServiceEndpoint } from '../openflow/features/service.js';

/**
 * Which endpoints of one service port this Node load-balances to (kube-proxy's CategorizeEndpoints,
 * as AntreaProxy applies it with the TopologyAwareHints and ServiceTrafficDistribution gates, both
 * GA and always on in Antrea). Zone hints are written into EndpointSlices by kube-controller-manager
 * when a Service asks for them (annotation service.kubernetes.io/topology-mode: Auto, the older
 * service.kubernetes.io/topology-aware-hints, or spec.trafficDistribution: PreferClose); the proxy
 * only reads the hints, as current kube-proxy and Antrea do. Node hints (PreferSameNode) belong to
 * Antrea's PreferSameTrafficDistribution gate (alpha, off) and are ignored.
 */

/** The Node label whose value is matched against endpoints' zone hints. */
export const TOPOLOGY_ZONE_LABEL = 'topology.kubernetes.io/zone';

/** One endpoint of a service port as its EndpointSlices describe it. */
export interface EndpointCandidate extends ServiceEndpoint {
  readonly nodeName?: string;
  readonly ready: boolean;
  /** Serving and terminating: used only when no endpoint is ready (connections drain in a rollout). */
  readonly servingTerminating: boolean;
  /** hints.forZones names; empty when the endpoint has none. */
  readonly zoneHints: readonly string[];
}

/**
 * True when traffic from this Node keeps to its zone: every ready endpoint carries a zone hint and
 * at least one is hinted for `zone`. Otherwise (a hint missing, the Node without a zone label, or
 * no endpoint for this zone) every endpoint is used, so a zone is never left without endpoints.
 */
export function prefersSameZone(candidates: readonly EndpointCandidate[], zone: string | undefined): boolean {
  let anyReady = false;
  let hasEndpointForZone = false;
  for (const c of candidates) {
    if (!c.ready) continue;
    anyReady = true;
    if (c.zoneHints.length === 0) return false;
    if (zone && c.zoneHints.includes(zone)) hasEndpointForZone = true;
  }
  return anyReady && hasEndpointForZone;
}

/**
 * Endpoints for traffic under the Cluster policy: the ready ones (only those hinted for this zone
 * when the zone is preferred); when none is ready, the serving-terminating ones in any zone.
 */
export function clusterEndpoints(
  candidates: readonly EndpointCandidate[],
  zone: string | undefined,
): EndpointCandidate[] {
  const sameZone = prefersSameZone(candidates, zone);
  const ready = candidates.filter((c) => c.ready && (!sameZone || c.zoneHints.includes(zone ?? '')));
  return ready.length > 0 ? ready : candidates.filter((c) => c.servingTerminating);
}

/**
 * Endpoints for traffic under the Local policy (internalTrafficPolicy, or externalTrafficPolicy for
 * traffic from outside): this Node's ready ones, else its serving-terminating ones. Topology does
 * not apply: the Node is narrower than its zone.
 */
export function nodeLocalEndpoints(
  candidates: readonly EndpointCandidate[],
  nodeName: string,
): EndpointCandidate[] {
  const local = candidates.filter((c) => c.nodeName === nodeName);
  const ready = local.filter((c) => c.ready);
  return ready.length > 0 ? ready : local.filter((c) => c.servingTerminating);
}
