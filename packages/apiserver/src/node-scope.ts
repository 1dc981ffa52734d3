import type { ApiRequest } from './registry.js';
import { ApiError } from './status.js';

/**
 * The Node a list or watch is limited to: the caller's bound Node if its token carries one,
 * otherwise the `nodeName` field selector (Antrea agents send `fieldSelector=nodeName=<node>`).
 * A caller bound to one Node that asks for another Node's objects is refused, so a stolen agent
 * token only ever reveals the policies of the Node it was issued for.
 */
export function nodeScope(req: ApiRequest): string | undefined {
  const requested = req.options.fieldSelector.equality('nodeName');
  const bound = req.user.nodeName;
  if (bound === undefined) return requested;
  if (requested !== undefined && requested !== bound) {
    const { info } = req;
    throw new ApiError(
      403,
      'Forbidden',
      `User "${req.user.username}" bound to Node "${bound}" cannot ${info.verb} ${info.resource} of Node "${requested}"`,
      { group: info.apiGroup, kind: info.resource },
    );
  }
  return bound;
}
