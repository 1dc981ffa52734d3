import {
  ApiError,
  type ApiObject,
  type ApiRequest,
  type ResourceHandler,
  type WatchSink,
} from '@antrea-ts/apiserver';
import type { SpannedObject } from '../store/ram-store.js';
import { boundNode, requestScope } from './scope.js';
import type { SpanWatchHub } from './span-watch-hub.js';

const GROUP = 'controlplane.antrea.io';

/**
 * list/get/watch of one controlplane resource over its watch hub.
 *
 * resourceVersion on watch: empty or "0" starts with the full state (what antrea-agent always
 * does: it re-lists through the watch on every reconnect). The store's current version resumes
 * with no initial events (kubectl get -w after a list). Anything else is 410 Expired: the store
 * keeps no history, and versions do not survive a controller restart, so the client re-lists.
 */
export function storeResourceHandler<T extends SpannedObject & { uid: string }>(
  hub: SpanWatchHub<T>,
  currentVersion: () => number,
): ResourceHandler {
  const resource = hub.conversion.resource;
  return {
    list(req: ApiRequest): ApiObject {
      return hub.list(requestScope(req));
    },
    get(req: ApiRequest): ApiObject {
      const name = req.info.name;
      const obj = hub.get(name, boundNode(req));
      // Outside a bound caller's span looks exactly like absent: nothing leaks about other Nodes.
      if (!obj) throw ApiError.notFound({ group: GROUP, resource }, name);
      return obj;
    },
    watch(req: ApiRequest, sink: WatchSink) {
      const scope = requestScope(req);
      const rv = req.options.resourceVersion;
      let initial = true;
      if (rv !== undefined && rv !== '' && rv !== '0') {
        if (rv !== String(currentVersion())) {
          throw ApiError.expired(`too old resource version: ${rv} (${currentVersion()})`);
        }
        initial = req.options.sendInitialEvents === true;
      }
      hub.watch(scope, sink, initial, initial && req.options.sendInitialEvents === true);
      return { bookmark: () => hub.bookmark() };
    },
  };
}
