import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import {
  type Ipv4Range,
  ipv4ToNumber,
  numberToIpv4,
  poolRanges,
  rangesContain,
  rangesSize,
} from '@antrea-ts/apis';

// Which object holds which pool IP, derived from the objects alone: Egresses keep their allocation
// in spec.egressIP, LoadBalancer Services in status.loadBalancer.ingress (as Antrea does), so a
// restarted controller rebuilds the same state from its first list and nothing else is persisted.
// Egresses and Services draw from the same ExternalIPPools, so both are claims on one plan.

export interface PoolUsage {
  total: number;
  used: number;
}

/** One object's claim on a pool IP. Keys must be unique across kinds (e.g. `Service:ns/name`). */
export interface PoolClaim {
  readonly key: string;
  readonly pool: string;
  /** The IP the object holds or asks for; none: any free IP of the pool. */
  readonly ip?: string | undefined;
  /** creationTimestamp in ms: older claims keep an IP two claim. */
  readonly createdMs: number;
}

/** The claims of another controller on the same pools (their IPs are taken here too). */
export interface PoolClaimSource {
  /** Claims with an IP: held, or written and not seen back yet. */
  heldClaims(): PoolClaim[];
  /** `changed` runs when those claims may have changed. */
  onChange(changed: () => void): void;
}

export interface AllocationPlan {
  /** Claims without an IP: the IP to write into their object. */
  readonly toWrite: ReadonlyMap<string, string>;
  /** Claims whose pool IP is theirs (already written or to be written). */
  readonly allocated: ReadonlyMap<string, string>;
  /** Claims that cannot have an IP, and why (Antrea's AllocationError). */
  readonly failed: ReadonlyMap<string, string>;
  readonly usage: ReadonlyMap<string, PoolUsage>;
}

const byAge = (a: PoolClaim, b: PoolClaim): number =>
  a.createdMs - b.createdMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function lowestFree(ranges: readonly Ipv4Range[], used: ReadonlySet<number>): number | undefined {
  for (const r of ranges) {
    for (let ip = r.first; ip <= r.last; ip++) if (!used.has(ip)) return ip;
  }
  return undefined;
}

/**
 * Older claims keep their IPs when two claim the same one; the rest get the lowest free IPs of
 * their pools in age order. `pending` are IPs already written for a claim and not seen back yet:
 * they stay with their claim, so one IP is never handed out twice.
 */
export function planPoolClaims(
  pools: readonly ExternalIPPool[],
  claims: readonly PoolClaim[],
  pending: ReadonlyMap<string, string> = new Map(),
): AllocationPlan {
  const ranges = new Map<string, Ipv4Range[] | string>();
  for (const p of pools) if (p.metadata.name) ranges.set(p.metadata.name, poolRanges(p));
  const used = new Map<string, Set<number>>();
  const usedIn = (pool: string) => {
    const set = used.get(pool) ?? new Set<number>();
    used.set(pool, set);
    return set;
  };
  const toWrite = new Map<string, string>();
  const allocated = new Map<string, string>();
  const failed = new Map<string, string>();
  const waiting: PoolClaim[] = [];

  for (const c of [...claims].sort(byAge)) {
    const r = ranges.get(c.pool);
    if (r === undefined) {
      failed.set(c.key, `ExternalIPPool ${c.pool} does not exist`);
      continue;
    }
    if (typeof r === 'string') {
      failed.set(c.key, `ExternalIPPool ${c.pool} is invalid: ${r}`);
      continue;
    }
    const wanted = c.ip ?? pending.get(c.key);
    if (wanted === undefined) {
      waiting.push(c);
      continue;
    }
    const ip = ipv4ToNumber(wanted);
    const poolUsed = usedIn(c.pool);
    if (ip === undefined || !rangesContain(r, ip)) {
      failed.set(c.key, `IP ${wanted} is not within the IP range of ExternalIPPool ${c.pool}`);
    } else if (poolUsed.has(ip)) {
      failed.set(c.key, `IP ${wanted} of ExternalIPPool ${c.pool} is already allocated`);
    } else {
      poolUsed.add(ip);
      allocated.set(c.key, wanted);
      if (c.ip === undefined) toWrite.set(c.key, wanted);
    }
  }
  for (const c of waiting) {
    const poolUsed = usedIn(c.pool);
    const ip = lowestFree(ranges.get(c.pool) as Ipv4Range[], poolUsed);
    if (ip === undefined) {
      failed.set(c.key, `ExternalIPPool ${c.pool} has no free IP`);
      continue;
    }
    poolUsed.add(ip);
    allocated.set(c.key, numberToIpv4(ip));
    toWrite.set(c.key, numberToIpv4(ip));
  }
  const usage = new Map<string, PoolUsage>();
  for (const [name, r] of ranges) {
    if (typeof r === 'string') continue;
    usage.set(name, { total: rangesSize(r), used: used.get(name)?.size ?? 0 });
  }
  return { toWrite, allocated, failed, usage };
}

/** creationTimestamp in ms (0 when absent), for claim order. */
export function createdMsOf(meta: { creationTimestamp?: Date | string | undefined }): number {
  return meta.creationTimestamp ? new Date(meta.creationTimestamp).getTime() : 0;
}

/** An Egress with a pool as a claim, keyed by its name (Egresses are cluster-scoped). */
export function egressClaim(e: Egress): PoolClaim | undefined {
  if (!e.spec.externalIPPool) return undefined;
  return {
    key: e.metadata.name ?? '',
    pool: e.spec.externalIPPool,
    ip: e.spec.egressIP,
    createdMs: createdMsOf(e.metadata),
  };
}

/**
 * The Egresses' plan, keyed by Egress name; `others` are claims of other kinds on the same pools
 * (LoadBalancer Services), which compete in the same age order and count in the usage.
 */
export function planAllocations(
  pools: readonly ExternalIPPool[],
  egresses: readonly Egress[],
  pending: ReadonlyMap<string, string> = new Map(),
  others: readonly PoolClaim[] = [],
): AllocationPlan {
  const claims = egresses.flatMap((e) => egressClaim(e) ?? []);
  return planPoolClaims(pools, [...claims, ...others], pending);
}
