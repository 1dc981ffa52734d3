// controlplane.antrea.io/v1beta2 supportbundlecollections (list/get/watch per Node span, as the
// other controlplane resources) and its status subresource, where agents report.
import { CONTROLPLANE_API_VERSION } from '@antrea-ts/apis';
import { ApiError, type ApiObject, type ResourceRegistry } from '@antrea-ts/apiserver';
import type { Logger } from 'pino';
import type { WireConversion } from '../apiserver/conversions.js';
import { SpanWatchHub } from '../apiserver/span-watch-hub.js';
import { storeResourceHandler } from '../apiserver/store-resource.js';
import type {
  CollectionNodeStatus,
  InternalSupportBundleCollection,
  SupportBundleCollectionController,
} from './collection-controller.js';

/**
 * The controlplane message: its auth configuration has no type (the one field set says which) and
 * hostPublicKey is bytes, where the CR carries it base64-encoded.
 */
function toWire(c: InternalSupportBundleCollection, rv: number): ApiObject {
  const { authType: _authType, ...authentication } = c.authentication;
  const key = c.fileServer.hostPublicKey;
  return {
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'SupportBundleCollection',
    metadata: { name: c.name, uid: c.uid, resourceVersion: String(rv) },
    expiredAt: c.expiredAt,
    ...(c.sinceTime ? { sinceTime: c.sinceTime } : {}),
    fileServer: { url: c.fileServer.url, ...(key ? { hostPublicKey: Buffer.from(key, 'base64') } : {}) },
    authentication,
  };
}

const conversion: WireConversion<InternalSupportBundleCollection> = {
  resource: 'supportbundlecollections',
  kind: 'SupportBundleCollection',
  listKind: 'SupportBundleCollectionList',
  perNode: false,
  full: (c, rv) => toWire(c, rv),
  modified: (_prev, c, rv) => toWire(c, rv),
};

export function registerCollectionResource(
  registry: ResourceRegistry,
  controller: SupportBundleCollectionController,
  logger: Logger,
): SpanWatchHub<InternalSupportBundleCollection> {
  const hub = new SpanWatchHub(controller.store, conversion, { logger });
  registry.register('controlplane.antrea.io', 'v1beta2', {
    name: 'supportbundlecollections',
    kind: 'SupportBundleCollection',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    handler: storeResourceHandler(hub, () => controller.store.resourceVersion),
    subresources: [
      {
        name: 'status',
        kind: 'SupportBundleCollectionStatus',
        verbs: ['create'],
        handler: {
          create(req) {
            const status = (req.body ?? {}) as CollectionNodeStatus;
            if (status.metadata?.name !== req.info.name)
              throw ApiError.badRequest('status is for another collection');
            const bound = req.user.nodeName;
            if (bound !== undefined && (status.nodes ?? []).some((n) => n.nodeName !== bound)) {
              throw new ApiError(
                403,
                'Forbidden',
                `a token bound to Node "${bound}" reports for its Node only`,
              );
            }
            controller.report(status);
            return {
              ...status,
              apiVersion: CONTROLPLANE_API_VERSION,
              kind: 'SupportBundleCollectionStatus',
            } as ApiObject;
          },
        },
      },
    ],
  });
  return hub;
}
