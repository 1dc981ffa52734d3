import { normalizeName } from './dns-message.js';

/**
 * A `fqdn` peer of a policy rule as Antrea matches it (pkg/agent/controller/networkpolicy/fqdn.go):
 * case-insensitive; a pattern without `*` names one FQDN exactly; `*` stands for any run of
 * characters, dots included, so `*.example.com` selects `a.example.com` and `a.b.example.com` but not
 * `example.com` itself.
 */
export interface FqdnSelector {
  readonly pattern: string;
  /** The name for exact selectors (the agent may resolve those itself); undefined for wildcards. */
  readonly exactName: string | undefined;
  matches(name: string): boolean;
}

export function fqdnSelector(pattern: string): FqdnSelector {
  const normalized = normalizeName(pattern);
  if (!normalized.includes('*')) {
    return { pattern, exactName: normalized, matches: (name) => normalizeName(name) === normalized };
  }
  const source = normalized
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const re = new RegExp(`^${source}$`);
  return { pattern, exactName: undefined, matches: (name) => re.test(normalizeName(name)) };
}
