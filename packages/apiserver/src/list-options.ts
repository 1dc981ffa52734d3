import { ApiServerError } from './errors.js';
import type { ListOptions } from './registry.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { ApiError } from './status.js';

function bool(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0' || v === '') return false;
  throw ApiError.badRequest(`${name}: invalid boolean "${v}"`);
}

function nonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw ApiError.badRequest(`${name}: must be a non-negative integer, got "${v}"`);
  return Number(v);
}

/** metav1.ListOptions from the query; a malformed parameter is a 400 for the client. */
export function parseListOptions(query: URLSearchParams): ListOptions {
  try {
    const resourceVersion = query.get('resourceVersion') ?? undefined;
    const resourceVersionMatch = query.get('resourceVersionMatch') ?? undefined;
    if (resourceVersionMatch && !['Exact', 'NotOlderThan'].includes(resourceVersionMatch)) {
      throw ApiError.badRequest(`resourceVersionMatch: unsupported value "${resourceVersionMatch}"`);
    }
    const timeoutSeconds = nonNegativeInt(query, 'timeoutSeconds');
    const limit = nonNegativeInt(query, 'limit');
    const sendInitialEvents = bool(query, 'sendInitialEvents');
    const cont = query.get('continue') ?? undefined;
    return {
      labelSelector: parseLabelSelector(query.get('labelSelector') ?? undefined),
      fieldSelector: parseFieldSelector(query.get('fieldSelector') ?? undefined),
      ...(resourceVersion !== undefined && resourceVersion !== '' ? { resourceVersion } : {}),
      ...(resourceVersionMatch ? { resourceVersionMatch } : {}),
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      allowWatchBookmarks: bool(query, 'allowWatchBookmarks') ?? false,
      ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
      ...(limit !== undefined && limit > 0 ? { limit } : {}),
      ...(cont ? { continue: cont } : {}),
    };
  } catch (error) {
    if (error instanceof ApiServerError) throw ApiError.badRequest(error.message);
    throw error;
  }
}
