import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import {
  type Ipv4Range,
  ipv4ToNumber,
  numberToIpv4,
  poolRanges,
  rangesContain,
  rangesSize,
} from '@antrea-ts/apis';

// Which Egress holds which pool IP, derived from the objects alone: the allocations live in the
// Egresses' spec.egressIP (written back as Antrea does), so a restarted controller rebuilds the
// same state from its first list and nothing else has to be persisted.

export interface PoolUsage {
  total: number;
  used: number;
}

export interface AllocationPlan {
  /** Egresses with a pool and no egressIP: the IP to write into their spec. */
  readonly toWrite: ReadonlyMap<string, string>;
  /** Egresses whose pool IP is theirs (already written or to be written). */
  readonly allocated: ReadonlyMap<string, string>;
  /** Egresses with a pool that cannot have an IP, and why (Antrea's AllocationError). */
  readonly failed: ReadonlyMap<string, string>;
  readonly usage: ReadonlyMap<string, PoolUsage>;
}

const byAge = (a: Egress, b: Egress): number => {
  const ta = a.metadata.creationTimestamp ? new Date(a.metadata.creationTimestamp).getTime() : 0;
  const tb = b.metadata.creationTimestamp ? new Date(b.metadata.creationTimestamp).getTime() : 0;
  return ta - tb || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
};

function lowestFree(ranges: readonly Ipv4Range[], used: ReadonlySet<number>): number | undefined {
  for (const r of ranges) {
    for (let ip = r.first; ip <= r.last; ip++) if (!used.has(ip)) return ip;
  }
  return undefined;
}

/**
 * Older Egresses keep their IPs when two claim the same one; the rest get the lowest free IPs of
 * their pools in age order. `pending` are IPs this controller already wrote and the informer has
 * not shown yet: they stay with their Egress, so one IP is never handed out twice.
 */
export function planAllocations(
  pools: readonly ExternalIPPool[],
  egresses: readonly Egress[],
  pending: ReadonlyMap<string, string> = new Map(),
): AllocationPlan {
  const ranges = new Map<string, Ipv4Range[] | string>();
  for (const p of pools) if (p.metadata.name) ranges.set(p.metadata.name, poolRanges(p));
  const used = new Map<string, Set<number>>();
  const toWrite = new Map<string, string>();
  const allocated = new Map<string, string>();
  const failed = new Map<string, string>();
  const withPool = egresses.filter((e) => e.spec.externalIPPool).sort(byAge);
  const waiting: Egress[] = [];

  for (const e of withPool) {
    const name = e.metadata.name ?? '';
    const poolName = e.spec.externalIPPool ?? '';
    const r = ranges.get(poolName);
    if (r === undefined) {
      failed.set(name, `ExternalIPPool ${poolName} does not exist`);
      continue;
    }
    if (typeof r === 'string') {
      failed.set(name, `ExternalIPPool ${poolName} is invalid: ${r}`);
      continue;
    }
    const wanted = e.spec.egressIP ?? pending.get(name);
    if (wanted === undefined) {
      waiting.push(e);
      continue;
    }
    const ip = ipv4ToNumber(wanted);
    const poolUsed = used.get(poolName) ?? new Set<number>();
    used.set(poolName, poolUsed);
    if (ip === undefined || !rangesContain(r, ip)) {
      failed.set(name, `IP ${wanted} is not within the IP range of ExternalIPPool ${poolName}`);
    } else if (poolUsed.has(ip)) {
      failed.set(name, `IP ${wanted} of ExternalIPPool ${poolName} is already allocated`);
    } else {
      poolUsed.add(ip);
      allocated.set(name, wanted);
      if (e.spec.egressIP === undefined) toWrite.set(name, wanted);
    }
  }
  for (const e of waiting) {
    const name = e.metadata.name ?? '';
    const poolName = e.spec.externalIPPool ?? '';
    const r = ranges.get(poolName) as Ipv4Range[];
    const poolUsed = used.get(poolName) ?? new Set<number>();
    used.set(poolName, poolUsed);
    const ip = lowestFree(r, poolUsed);
    if (ip === undefined) {
      failed.set(name, `ExternalIPPool ${poolName} has no free IP`);
      continue;
    }
    poolUsed.add(ip);
    allocated.set(name, numberToIpv4(ip));
    toWrite.set(name, numberToIpv4(ip));
  }
  const usage = new Map<string, PoolUsage>();
  for (const [name, r] of ranges) {
    if (typeof r === 'string') continue;
    usage.set(name, { total: rangesSize(r), used: used.get(name)?.size ?? 0 });
  }
  return { toWrite, allocated, failed, usage };
}
