import {
  type ExternalIPPool,
  ipv4ToNumber,
  poolRanges,
  rangesContain,
  SERVICE_EXTERNAL_IP_POOL_ANNOTATION,
} from '@antrea-ts/apis';
import type { V1Service } from '@kubernetes/client-node';
import { createdMsOf, type PoolClaim } from '../egress/allocation-plan.js';

// Which Services ask ServiceExternalIP for an IP, and which IP they hold or ask for. Like Antrea,
// the annotation alone decides (spec.loadBalancerClass is not looked at): a LoadBalancer Service
// annotated service.antrea.io/external-ip-pool gets an IP of that pool; its current IP is the
// first status.loadBalancer.ingress IP, which is how allocations survive a controller restart.

/** The pool a Service asks its IP from, when it is a LoadBalancer with the annotation. */
export function requestedPool(svc: V1Service): string | undefined {
  if (svc.spec?.type !== 'LoadBalancer') return undefined;
  const pool = svc.metadata?.annotations?.[SERVICE_EXTERNAL_IP_POOL_ANNOTATION];
  return pool ? pool : undefined;
}

/** The claim key of a Service (unique next to Egress names). */
export const serviceClaimKey = (svc: V1Service): string =>
  `Service:${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}`;

/** The first ingress IP, the one Antrea manages. */
export const ingressIp = (svc: V1Service): string | undefined =>
  svc.status?.loadBalancer?.ingress?.[0]?.ip || undefined;

function inPool(pool: ExternalIPPool | undefined, ip: string): boolean {
  const ranges = pool ? poolRanges(pool) : undefined;
  const n = ipv4ToNumber(ip);
  return Array.isArray(ranges) && n !== undefined && rangesContain(ranges, n);
}

/**
 * The Service's claim: spec.loadBalancerIP when set (honoured only inside the pool: the plan fails
 * it otherwise); else the IP it holds when that IP is in its pool (kept across restarts); else any
 * free IP (a new Service, or one whose annotation moved it to another pool).
 */
export function serviceClaim(
  svc: V1Service,
  pool: (name: string) => ExternalIPPool | undefined,
): PoolClaim | undefined {
  const poolName = requestedPool(svc);
  if (!poolName) return undefined;
  const held = ingressIp(svc);
  const ip = svc.spec?.loadBalancerIP || (held && inPool(pool(poolName), held) ? held : undefined);
  return { key: serviceClaimKey(svc), pool: poolName, ip, createdMs: createdMsOf(svc.metadata ?? {}) };
}
