import { type ExternalIPPool, SERVICE_EXTERNAL_IP_POOL_ANNOTATION } from '@antrea-ts/apis';
import type { V1Service } from '@kubernetes/client-node';
import { choosePoolNode, poolSelectedNodes } from '../egress/egress-node-selection.js';
import type { EgressNodeInfo } from '../egress/egress-source.js';

/** Where one Service's external IP lives; node undefined: no Node qualifies now. */
export interface ServiceIpPlacement {
  readonly service: V1Service;
  readonly ip: string;
  readonly node: string | undefined;
}

export interface ServiceIpPlacementInput {
  readonly services: readonly V1Service[];
  readonly pool: (name: string) => ExternalIPPool | undefined;
  /** The Ready Nodes. */
  readonly nodes: readonly EgressNodeInfo[];
  /** The Nodes with a ready endpoint of the Service (for externalTrafficPolicy Local). */
  readonly endpointNodes: (service: V1Service) => ReadonlySet<string>;
}

/**
 * Antrea's agent-side ServiceExternalIP placement: a LoadBalancer Service annotated with a pool and
 * holding an IPv4 ingress IP lives on the Node that IP hashes to among the Ready Nodes its pool's
 * nodeSelector selects (the Egress ring, choosePoolNode). With externalTrafficPolicy Local only
 * Nodes with a ready local endpoint qualify, and the Node named in the ingress hostname keeps the
 * IP while it still qualifies, so endpoint churn does not move it. Every agent computes the same.
 */
export function placeServiceIps(input: ServiceIpPlacementInput): ServiceIpPlacement[] {
  const out: ServiceIpPlacement[] = [];
  for (const service of input.services) {
    const poolName = service.metadata?.annotations?.[SERVICE_EXTERNAL_IP_POOL_ANNOTATION];
    const ingress = service.status?.loadBalancer?.ingress?.[0];
    const ip = ingress?.ip;
    if (service.spec?.type !== 'LoadBalancer' || !poolName || !ip || ip.includes(':')) continue;
    const pool = input.pool(poolName);
    if (!pool) continue;
    let candidates = poolSelectedNodes(pool, input.nodes).map((n) => n.name);
    if (service.spec.externalTrafficPolicy === 'Local') {
      const withEndpoints = input.endpointNodes(service);
      candidates = candidates.filter((n) => withEndpoints.has(n));
      const current = ingress.hostname;
      if (current && candidates.includes(current)) {
        out.push({ service, ip, node: current });
        continue;
      }
    }
    out.push({ service, ip, node: choosePoolNode(ip, candidates) });
  }
  return out;
}
