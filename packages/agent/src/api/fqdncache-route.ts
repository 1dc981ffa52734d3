// `/fqdncache`: the addresses the FQDN policy controller learned from DNS answers, one entry per
// name and address with its expiry, as `antctl get fqdncache [--domain pattern]` asks (Antrea
// pkg/agent/apiserver/handlers/fqdncache).
import type { FastifyInstance } from 'fastify';
import type { FqdnCache } from '../networkpolicy/fqdn/fqdn-cache.js';
import { RouteRefusal } from './route-refusal.js';

/** The part of the cache the route reads. */
export type FqdnCacheView = Pick<FqdnCache, 'entries'>;

/** One row of the response (Antrea's agentapis.FQDNCacheResponse field names). */
export interface FqdnCacheEntryJson {
  fqdnName: string;
  ipAddress: string;
  /** RFC 3339 with the fraction trimmed, as Go encodes a time.Time. */
  expirationTime: string;
}

/**
 * The `domain` parameter as Antrea reads it: surrounding spaces dropped, '.' literal, '*' any run
 * of characters (dots included, so `*.example.com` also matches `a.b.example.com` but not
 * `example.com`), anything else regular-expression syntax, the whole name matched. Case matters
 * (the cache holds lower-case names). Empty: no filter.
 */
export function domainFilter(domain: string | undefined): RegExp | undefined {
  const pattern = (domain ?? '').trim();
  if (pattern === '') return undefined;
  const source = `^${pattern.replaceAll('.', '[.]').replaceAll('*', '.*')}$`;
  try {
    return new RegExp(source, 'u');
  } catch (err) {
    throw new RouteRefusal(400, `Invalid regex: ${(err as Error).message}`);
  }
}

/** Go's time.Time JSON form of a UTC instant: RFC 3339, fraction without trailing zeros. */
export function goTimeJson(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** The cache's entries that the filter keeps, by name then address. */
export function fqdnCacheResponse(cache: FqdnCacheView | undefined, filter?: RegExp): FqdnCacheEntryJson[] {
  const out: FqdnCacheEntryJson[] = [];
  for (const { name, addresses } of cache?.entries() ?? []) {
    if (filter && !filter.test(name)) continue;
    for (const { ip, expiresAt } of [...addresses].sort((a, b) => a.ip.localeCompare(b.ip))) {
      out.push({ fqdnName: name, ipAddress: ip, expirationTime: goTimeJson(expiresAt) });
    }
  }
  return out;
}

/** `cache()` is none on an agent without a NetworkPolicy controller: an empty list, as an empty cache. */
export function registerFqdnCacheRoute(app: FastifyInstance, cache: () => FqdnCacheView | undefined): void {
  app.get<{ Querystring: { domain?: string } }>('/fqdncache', async (req, reply) => {
    try {
      return fqdnCacheResponse(cache(), domainFilter(req.query.domain));
    } catch (err) {
      if (err instanceof RouteRefusal) return reply.code(err.status).send({ error: err.message });
      throw err;
    }
  });
}
