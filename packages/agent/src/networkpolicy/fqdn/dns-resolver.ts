import { promises as dns } from 'node:dns';
import type { ResolvedAddress } from './dns-message.js';

/** Antrea's timeout of the agent's own DNS requests. */
const DNS_REQUEST_TIMEOUT_MS = 10_000;

/**
 * The agent's own A lookups for exact FQDNs, with the records' TTLs: through `server`
 * (`ip` or `ip:port`, Antrea's `dnsServerOverride`) when given, else the servers of the Node's
 * /etc/resolv.conf. A name that does not exist resolves to no address; other failures throw.
 */
export function dnsResolver(server?: string): (name: string) => Promise<ResolvedAddress[]> {
  const resolver = new dns.Resolver({ timeout: DNS_REQUEST_TIMEOUT_MS, tries: 1 });
  if (server) resolver.setServers([server]);
  return async (name) => {
    try {
      const records = await resolver.resolve4(name, { ttl: true });
      return records.map((r) => ({ ip: r.address, ttl: r.ttl }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
      throw err;
    }
  };
}
