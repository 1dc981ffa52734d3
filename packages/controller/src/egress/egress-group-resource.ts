import type { ResourceRegistry } from '@antrea-ts/apiserver';
import type { Logger } from 'pino';
import { CONTROLPLANE_GROUP } from '../apiserver/controller-api.js';
import { appliedToGroupConversion, type WireConversion } from '../apiserver/conversions.js';
import { SpanWatchHub } from '../apiserver/span-watch-hub.js';
import { storeResourceHandler } from '../apiserver/store-resource.js';
import type { Store } from '../store/ram-store.js';
import type { InternalEgressGroup } from './egress-group.js';

/**
 * EgressGroups go out exactly as AppliedToGroups do (per-Node members, patches per Node, span =
 * Nodes with members); only the kinds differ.
 */
const egressGroupConversion: WireConversion<InternalEgressGroup> = {
  resource: 'egressgroups',
  kind: 'EgressGroup',
  listKind: 'EgressGroupList',
  perNode: true,
  full: (g, rv, node) => ({ ...appliedToGroupConversion.full(g, rv, node), kind: 'EgressGroup' }),
  modified(prev, curr, rv, node) {
    const patch = appliedToGroupConversion.modified(prev, curr, rv, node);
    return patch && { ...patch, kind: 'EgressGroupPatch' };
  },
};

/** Serves controlplane.antrea.io/v1beta2 egressgroups (get, list, watch) from the store. */
export function registerEgressGroupResource(
  registry: ResourceRegistry,
  groups: Store<InternalEgressGroup>,
  logger: Logger,
): SpanWatchHub<InternalEgressGroup> {
  const hub = new SpanWatchHub(groups, egressGroupConversion, { logger });
  registry.register(CONTROLPLANE_GROUP, 'v1beta2', {
    name: 'egressgroups',
    kind: 'EgressGroup',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    handler: storeResourceHandler(hub, () => groups.resourceVersion),
  });
  return hub;
}
