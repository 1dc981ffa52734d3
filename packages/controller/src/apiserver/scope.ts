import { ApiError, type ApiRequest, nodeScope } from '@antrea-ts/apiserver';
import type { WatchScope } from './span-watch-hub.js';

const SUPPORTED_FIELDS = new Set(['nodeName', 'metadata.name']);

/**
 * The scope of a list or watch: Antrea's keyAndSpanSelectFunc supports `metadata.name=` and
 * `nodeName=` only (anything else is 400 there too). A token bound to a Node limits the caller to
 * that Node whatever it asks (nodeScope: asking for another Node is 403).
 */
export function requestScope(req: ApiRequest): WatchScope {
  for (const r of req.options.fieldSelector.requirements) {
    if (!SUPPORTED_FIELDS.has(r.field) || r.operator !== '=') {
      throw ApiError.badRequest(`field label not supported: ${r.field}${r.operator}`);
    }
  }
  return {
    node: nodeScope(req),
    name: req.options.fieldSelector.equality('metadata.name'),
  };
}

/** For get: only a Node-bound caller is limited (field selectors do not apply to get). */
export function boundNode(req: ApiRequest): string | undefined {
  return req.user.nodeName;
}
