import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import { type Ipv4Range, ipv4ToNumber, parseRange, poolRanges, rangesContain } from '@antrea-ts/apis';
import { ALLOWED, deny, type ValidationResult } from '../validation/result.js';

// Admission checks of Antrea's egress and externalippool webhooks (pkg/controller/egress and
// externalippool validate.go), with their messages, for IPv4 pools.

const rangeText = (r: { cidr?: string; start?: string; end?: string }) =>
  r.cidr ? r.cidr : `${r.start}-${r.end}`;

/**
 * A pool's ranges must parse, go forward, and overlap neither each other nor another pool's; an
 * update may add ranges but not remove any (IPs in them may be allocated).
 */
export function validateExternalIPPool(
  pool: ExternalIPPool,
  existing: Iterable<ExternalIPPool>,
  old?: ExternalIPPool,
): ValidationResult {
  const seen: Array<{ key: string; range: Ipv4Range }> = [];
  for (const other of existing) {
    if (other.metadata.name === pool.metadata.name) continue;
    for (const r of other.spec.ipRanges ?? []) {
      const parsed = parseRange(r);
      if (typeof parsed !== 'string')
        seen.push({ key: `range [${rangeText(r)}] of pool ${other.metadata.name}`, range: parsed });
    }
  }
  for (const r of pool.spec.ipRanges ?? []) {
    const key = `range [${rangeText(r)}]`;
    if (r.cidr === undefined) {
      if (ipv4ToNumber(r.start ?? '') === undefined) return deny(`invalid start ip address ${r.start}`);
      if (ipv4ToNumber(r.end ?? '') === undefined) return deny(`invalid end ip address ${r.end}`);
    }
    const parsed = parseRange(r);
    if (typeof parsed === 'string') {
      if (r.cidr !== undefined) return deny(`invalid cidr ${r.cidr}`);
      return deny(`range start ${r.start} should not be greater than range end ${r.end}`);
    }
    const clash = seen.find((s) => parsed.first <= s.range.last && s.range.first <= parsed.last);
    if (clash) return deny(`${key} overlaps with ${clash.key}`);
    seen.push({ key, range: parsed });
  }
  if (old) {
    const now = new Set((pool.spec.ipRanges ?? []).map(rangeText));
    const removed = (old.spec.ipRanges ?? []).map(rangeText).filter((r) => !now.has(r));
    if (removed.length > 0)
      return deny(`existing IPRanges [${[...new Set(removed)].sort().join(' ')}] cannot be deleted`);
  }
  return ALLOWED;
}

/** The single and the list forms exclude each other; an egressIP with a pool must be in it. */
export function validateEgress(
  egress: Egress,
  pool: (name: string) => ExternalIPPool | undefined,
  old?: Egress,
): ValidationResult {
  const spec = egress.spec ?? {};
  if ((spec.egressIPs?.length || spec.externalIPPools?.length) && (spec.egressIP || spec.externalIPPool)) {
    return deny(
      '{spec.egressIPs, spec.externalIPPools} and {spec.egressIP, spec.externalIPPool} are mutually exclusive',
    );
  }
  if (old && old.spec?.egressIP === spec.egressIP && old.spec?.externalIPPool === spec.externalIPPool)
    return ALLOWED;
  if (!spec.egressIP || !spec.externalIPPool) return ALLOWED;
  const ip = ipv4ToNumber(spec.egressIP);
  if (ip === undefined) return deny(`IP ${spec.egressIP} is not valid`);
  const p = pool(spec.externalIPPool);
  if (!p) return deny(`ExternalIPPool ${spec.externalIPPool} does not exist`);
  const ranges = poolRanges(p);
  if (typeof ranges === 'string' || !rangesContain(ranges, ip))
    return deny(`IP ${spec.egressIP} is not within the IP range`);
  return ALLOWED;
}
