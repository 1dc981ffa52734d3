import { CRD_GROUP } from '../constants.js';

/** Where a crd.antrea.io kind lives in the API; enough to build REST paths and informers. */
export interface CrdKindInfo {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly group: typeof CRD_GROUP;
  /** The version Antrea serves and stores today. */
  readonly version: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
}

function kindInfo(
  kind: string,
  plural: string,
  version: string,
  namespaced: boolean,
  shortNames: readonly string[],
): CrdKindInfo {
  return Object.freeze({
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: Object.freeze([...shortNames]),
    group: CRD_GROUP,
    version,
    apiVersion: `${CRD_GROUP}/${version}`,
    namespaced,
  });
}

/**
 * The crd.antrea.io kinds Antrea-TS installs, keyed by kind. The CRD manifests are generated from
 * these entries, so names here and in build/crds cannot disagree.
 */
export const CRD_KINDS = Object.freeze({
  ClusterNetworkPolicy: kindInfo('ClusterNetworkPolicy', 'clusternetworkpolicies', 'v1beta1', false, [
    'acnp',
  ]),
  // "anp" is kept because Antrea still serves it, although deprecated in favour of "annp".
  NetworkPolicy: kindInfo('NetworkPolicy', 'networkpolicies', 'v1beta1', true, ['annp', 'anp']),
  Tier: kindInfo('Tier', 'tiers', 'v1beta1', false, ['tr']),
  ClusterGroup: kindInfo('ClusterGroup', 'clustergroups', 'v1beta1', false, ['cg']),
  Group: kindInfo('Group', 'groups', 'v1beta1', true, ['grp']),
  ExternalEntity: kindInfo('ExternalEntity', 'externalentities', 'v1alpha2', true, ['ee']),
  Traceflow: kindInfo('Traceflow', 'traceflows', 'v1beta1', false, ['tf']),
  SupportBundleCollection: kindInfo(
    'SupportBundleCollection',
    'supportbundlecollections',
    'v1alpha1',
    false,
    ['sbc'],
  ),
  AntreaControllerInfo: kindInfo('AntreaControllerInfo', 'antreacontrollerinfos', 'v1beta1', false, ['aci']),
  AntreaAgentInfo: kindInfo('AntreaAgentInfo', 'antreaagentinfos', 'v1beta1', false, ['aai']),
  Egress: kindInfo('Egress', 'egresses', 'v1beta1', false, ['eg']),
  ExternalIPPool: kindInfo('ExternalIPPool', 'externalippools', 'v1beta1', false, ['eip']),
  PacketCapture: kindInfo('PacketCapture', 'packetcaptures', 'v1alpha1', false, ['pcap']),
  TrafficControl: kindInfo('TrafficControl', 'trafficcontrols', 'v1alpha2', false, ['tc']),
});

export type CrdKind = keyof typeof CRD_KINDS;

/**
 * REST path of a crd.antrea.io collection, or of one object when `name` is given. A namespaced
 * kind without `namespace` addresses the collection across all Namespaces.
 */
export function crdResourcePath(kind: CrdKind, opts: { namespace?: string; name?: string } = {}): string {
  const info = CRD_KINDS[kind];
  // Programmer errors, not runtime conditions: the kind table decides the scope statically.
  if (!info.namespaced && opts.namespace !== undefined) {
    throw new TypeError(`${kind} is cluster-scoped and has no namespace`);
  }
  if (info.namespaced && opts.name !== undefined && opts.namespace === undefined) {
    throw new TypeError(`${kind} is namespaced: a namespace is needed to address ${opts.name}`);
  }
  const ns = opts.namespace === undefined ? '' : `/namespaces/${encodeURIComponent(opts.namespace)}`;
  const name = opts.name === undefined ? '' : `/${encodeURIComponent(opts.name)}`;
  return `/apis/${info.group}/${info.version}${ns}/${info.plural}${name}`;
}
