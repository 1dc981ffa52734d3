import type { ControlplaneKinds, NetworkPolicyStatus } from '@antrea-ts/apis';
import { ApiError, type ApiObject, type ApiRequest, type ResourceRegistry } from '@antrea-ts/apiserver';
import type { Logger } from 'pino';
import type { Store } from '../store/ram-store.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';
import { addressGroupConversion, appliedToGroupConversion, networkPolicyConversion } from './conversions.js';
import { type HubObserver, SpanWatchHub } from './span-watch-hub.js';
import { STATS_RESOURCES, type StatsAggregator } from './stats-aggregator.js';
import { storeResourceHandler } from './store-resource.js';

export const CONTROLPLANE_GROUP = 'controlplane.antrea.io';
export const SYSTEM_GROUP = 'system.antrea.io';
export const STATS_GROUP = 'stats.antrea.io';

export interface ControllerApiOptions {
  logger: Logger;
  networkPolicies: Store<InternalNetworkPolicy>;
  appliedToGroups: Store<InternalAppliedToGroup>;
  addressGroups: Store<InternalAddressGroup>;
  /** networkpolicies/{name}/status from agents (the status controller). */
  reportStatus(status: NetworkPolicyStatus): void;
  stats: StatsAggregator;
  /** The current AntreaControllerInfo (system.antrea.io controllerinfos). */
  controllerInfo(): ApiObject;
  observer?: HubObserver;
}

export interface ControllerApi {
  readonly networkPolicies: SpanWatchHub<InternalNetworkPolicy>;
  readonly appliedToGroups: SpanWatchHub<InternalAppliedToGroup>;
  readonly addressGroups: SpanWatchHub<InternalAddressGroup>;
  /** Nodes with an open watch on any controlplane resource (connected agents). */
  connectedNodes(): Set<string>;
  start(): void;
  stop(): void;
}

/** A Node-bound caller may only speak for its own Node. */
function checkReporter(req: ApiRequest, nodes: readonly string[]): void {
  const bound = req.user.nodeName;
  if (bound === undefined) return;
  for (const n of nodes) {
    if (n !== bound) {
      throw new ApiError(
        403,
        'Forbidden',
        `User "${req.user.username}" bound to Node "${bound}" cannot report for Node "${n}"`,
        { group: req.info.apiGroup, kind: req.info.resource },
      );
    }
  }
}

function body<T>(req: ApiRequest, kind: string): T {
  const b = req.body as { kind?: string; metadata?: { name?: string } } | undefined;
  if (typeof b !== 'object' || b === null) throw ApiError.badRequest(`expected a ${kind}`);
  if (b.kind !== undefined && b.kind !== kind) throw ApiError.badRequest(`expected a ${kind}, got ${b.kind}`);
  return b as T;
}

/**
 * Registers what antrea-controller serves from its stores: controlplane.antrea.io
 * networkpolicies (+status), addressgroups, appliedtogroups, nodestatssummaries;
 * stats.antrea.io policy stats; system.antrea.io controllerinfos.
 */
export function registerControllerApi(registry: ResourceRegistry, opts: ControllerApiOptions): ControllerApi {
  const hubOpts = { logger: opts.logger, ...(opts.observer ? { observer: opts.observer } : {}) };
  const nps = new SpanWatchHub(opts.networkPolicies, networkPolicyConversion, hubOpts);
  const atgs = new SpanWatchHub(opts.appliedToGroups, appliedToGroupConversion, hubOpts);
  const ags = new SpanWatchHub(opts.addressGroups, addressGroupConversion, hubOpts);
  const rv = (s: Store<unknown & { name: string; span: ReadonlySet<string> }>) => () => s.resourceVersion;

  registry.register(CONTROLPLANE_GROUP, 'v1beta2', {
    name: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    shortNames: ['netpol'],
    handler: storeResourceHandler(nps, rv(opts.networkPolicies)),
    subresources: [
      {
        name: 'status',
        kind: 'NetworkPolicyStatus',
        verbs: ['create'],
        handler: {
          create(req) {
            const status = body<NetworkPolicyStatus & { kind?: string }>(req, 'NetworkPolicyStatus');
            if (status.metadata?.name !== req.info.name) {
              throw ApiError.badRequest(
                `status is for ${JSON.stringify(status.metadata?.name)}, not ${JSON.stringify(req.info.name)}`,
              );
            }
            checkReporter(
              req,
              (status.nodes ?? []).map((n) => n.nodeName),
            );
            opts.reportStatus({
              metadata: status.metadata,
              ...(status.nodes ? { nodes: status.nodes } : {}),
            });
            return { ...status, apiVersion: `${CONTROLPLANE_GROUP}/v1beta2`, kind: 'NetworkPolicyStatus' };
          },
        },
      },
    ],
  });
  registry.register(CONTROLPLANE_GROUP, 'v1beta2', {
    name: 'addressgroups',
    kind: 'AddressGroup',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    handler: storeResourceHandler(ags, rv(opts.addressGroups)),
  });
  registry.register(CONTROLPLANE_GROUP, 'v1beta2', {
    name: 'appliedtogroups',
    kind: 'AppliedToGroup',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    handler: storeResourceHandler(atgs, rv(opts.appliedToGroups)),
  });
  registry.register(CONTROLPLANE_GROUP, 'v1beta2', {
    name: 'nodestatssummaries',
    kind: 'NodeStatsSummary',
    namespaced: false,
    verbs: ['create'],
    handler: {
      create(req) {
        const summary = body<ControlplaneKinds['NodeStatsSummary']>(req, 'NodeStatsSummary');
        checkReporter(req, [summary.metadata?.name ?? '']);
        opts.stats.collect(summary);
        return { ...summary, apiVersion: `${CONTROLPLANE_GROUP}/v1beta2`, kind: 'NodeStatsSummary' };
      },
    },
  });

  for (const res of STATS_RESOURCES) {
    registry.register(STATS_GROUP, 'v1alpha1', {
      name: res.resource,
      kind: res.kind,
      namespaced: res.namespaced,
      verbs: ['get', 'list'],
      handler: {
        list: (req) => opts.stats.list(res, req.info.namespace),
        get(req) {
          const obj = opts.stats.get(res, req.info.namespace, req.info.name);
          if (!obj) throw ApiError.notFound({ group: STATS_GROUP, resource: res.resource }, req.info.name);
          return obj;
        },
      },
    });
  }

  registry.register(SYSTEM_GROUP, 'v1beta1', {
    name: 'controllerinfos',
    kind: 'AntreaControllerInfo',
    namespaced: false,
    verbs: ['get', 'list'],
    handler: {
      list: () => ({
        apiVersion: `${SYSTEM_GROUP}/v1beta1`,
        kind: 'AntreaControllerInfoList',
        metadata: {},
        items: [opts.controllerInfo()],
      }),
      get(req) {
        const info = opts.controllerInfo();
        if ((info.metadata as { name?: string } | undefined)?.name !== req.info.name) {
          throw ApiError.notFound({ group: SYSTEM_GROUP, resource: 'controllerinfos' }, req.info.name);
        }
        return info;
      },
    },
  });

  return {
    networkPolicies: nps,
    appliedToGroups: atgs,
    addressGroups: ags,
    connectedNodes() {
      return new Set([...nps.watchedNodes(), ...atgs.watchedNodes(), ...ags.watchedNodes()]);
    },
    start() {
      nps.start();
      atgs.start();
      ags.start();
      opts.stats.start();
    },
    stop() {
      nps.stop();
      atgs.stop();
      ags.stop();
      opts.stats.stop();
    },
  };
}
