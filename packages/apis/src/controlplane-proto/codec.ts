// Protobuf codecs for controlplane.antrea.io/v1beta2 objects, as a real antrea-agent sends and
// expects them (Content-Type application/vnd.kubernetes.protobuf, watch stream ;stream=watch).
import protobuf from 'protobufjs/light.js';
import type {
  AddressGroup,
  AddressGroupList,
  AddressGroupPatch,
  AppliedToGroup,
  AppliedToGroupList,
  AppliedToGroupPatch,
  GroupMember,
  IPBlock,
  IPNet,
  NetworkPolicy,
  NetworkPolicyList,
  NetworkPolicyPeer,
  NetworkPolicyReference,
  NetworkPolicyRule,
  NetworkPolicyStatus,
  Service,
} from '../controlplane/types.js';
import { decodeEnvelope, encodeEnvelope } from '../k8s-proto/envelope.js';
import { ProtoError } from '../k8s-proto/errors.js';
import type { RawWatchEvent, WatchEventType } from '../k8s-proto/watch.js';
import { encodeWatchFrame } from '../k8s-proto/watch.js';
import type {
  EgressGroup,
  EgressGroupList,
  EgressGroupPatch,
  GroupAssociation,
  GroupMembers,
  NetworkPolicyEvaluation,
  NetworkPolicyStats,
  NodeStatsSummary,
  PaginationGetOptions,
  Status,
  SupportBundleObject,
} from './extra-types.js';
import { controlplaneDescriptor } from './generated/descriptor.js';
import { DECODE_KEEP_ZERO, GO_ALWAYS_WRITTEN } from './go-presence.js';
import { fieldsV1Hook, intOrStringHook, timeHook } from './k8s-hooks.js';
import { MessageCodec } from './message-codec.js';

export const CONTROLPLANE_API_VERSION = 'controlplane.antrea.io/v1beta2';

const CP = 'antrea_io.antrea.pkg.apis.controlplane.v1beta2.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';

/** Every message this codec handles, by kind, with its TS form. */
export interface ControlplaneKinds {
  NetworkPolicy: NetworkPolicy;
  NetworkPolicyList: NetworkPolicyList;
  AddressGroup: AddressGroup;
  AddressGroupList: AddressGroupList;
  AddressGroupPatch: AddressGroupPatch;
  AppliedToGroup: AppliedToGroup;
  AppliedToGroupList: AppliedToGroupList;
  AppliedToGroupPatch: AppliedToGroupPatch;
  EgressGroup: EgressGroup;
  EgressGroupList: EgressGroupList;
  EgressGroupPatch: EgressGroupPatch;
  NetworkPolicyStatus: NetworkPolicyStatus;
  NodeStatsSummary: NodeStatsSummary;
  NetworkPolicyEvaluation: NetworkPolicyEvaluation;
  GroupAssociation: GroupAssociation;
  IPGroupAssociation: GroupAssociation;
  GroupMembers: GroupMembers;
  ClusterGroupMembers: GroupMembers;
  PaginationGetOptions: PaginationGetOptions;
  SupportBundleCollection: SupportBundleObject;
  SupportBundleCollectionList: SupportBundleObject;
  SupportBundleCollectionStatus: SupportBundleObject;
  /** meta/v1 Status (apiVersion "v1"): watch ERROR events and error responses. */
  Status: Status;
  // Nested messages, encodable alone for tests and golden fixtures (no envelope of their own).
  GroupMember: GroupMember;
  IPNet: IPNet;
  IPBlock: IPBlock;
  Service: Service;
  NetworkPolicyRule: NetworkPolicyRule;
  NetworkPolicyPeer: NetworkPolicyPeer;
  NetworkPolicyReference: NetworkPolicyReference;
  NetworkPolicyStats: NetworkPolicyStats;
}

export type ControlplaneKind = keyof ControlplaneKinds;

interface KindInfo {
  readonly fullName: string;
  readonly apiVersion: string;
}

/** kind -> message and apiVersion. Table-driven so adding a kind is one line. */
const KINDS: Readonly<Record<ControlplaneKind, KindInfo>> = (() => {
  const cp = (name: string): KindInfo => ({ fullName: CP + name, apiVersion: CONTROLPLANE_API_VERSION });
  const kinds = {} as Record<ControlplaneKind, KindInfo>;
  const names: ControlplaneKind[] = [
    'NetworkPolicy',
    'NetworkPolicyList',
    'AddressGroup',
    'AddressGroupList',
    'AddressGroupPatch',
    'AppliedToGroup',
    'AppliedToGroupList',
    'AppliedToGroupPatch',
    'EgressGroup',
    'EgressGroupList',
    'EgressGroupPatch',
    'NetworkPolicyStatus',
    'NodeStatsSummary',
    'NetworkPolicyEvaluation',
    'GroupAssociation',
    'IPGroupAssociation',
    'GroupMembers',
    'ClusterGroupMembers',
    'PaginationGetOptions',
    'SupportBundleCollection',
    'SupportBundleCollectionList',
    'SupportBundleCollectionStatus',
    'GroupMember',
    'IPNet',
    'IPBlock',
    'Service',
    'NetworkPolicyRule',
    'NetworkPolicyPeer',
    'NetworkPolicyReference',
    'NetworkPolicyStats',
  ];
  for (const n of names) kinds[n] = cp(n);
  kinds.Status = { fullName: `${META}Status`, apiVersion: 'v1' };
  return Object.freeze(kinds);
})();

export const CONTROLPLANE_KINDS: readonly ControlplaneKind[] = Object.freeze(
  Object.keys(KINDS) as ControlplaneKind[],
);

// Built once at import from the generated descriptor: immutable schema, no I/O.
const codec = new MessageCodec(protobuf.Root.fromJSON(controlplaneDescriptor), {
  goAlwaysWritten: GO_ALWAYS_WRITTEN,
  decodeKeepZero: DECODE_KEEP_ZERO,
  hooks: {
    [`${META}Time`]: timeHook,
    'k8s.io.apimachinery.pkg.util.intstr.IntOrString': intOrStringHook,
    [`${META}FieldsV1`]: fieldsV1Hook,
  },
});

function kindInfo(kind: string): KindInfo {
  const info = (KINDS as Record<string, KindInfo | undefined>)[kind];
  if (!info) throw new ProtoError('PROTO_ENCODE', `unknown controlplane kind ${JSON.stringify(kind)}`);
  return info;
}

/** Bare protobuf message bytes (what runtime.Unknown.raw carries). Throws PROTO_ENCODE. */
export function encodeControlplane<K extends ControlplaneKind>(
  kind: K,
  obj: ControlplaneKinds[K],
): Uint8Array {
  return codec.encode(kindInfo(kind).fullName, obj);
}

/** Inverse of encodeControlplane. Throws PROTO_DECODE. */
export function decodeControlplane<K extends ControlplaneKind>(
  kind: K,
  bytes: Uint8Array,
): ControlplaneKinds[K] {
  return codec.decode(kindInfo(kind).fullName, bytes) as ControlplaneKinds[K];
}

/** A complete Kubernetes protobuf object: "k8s\0" + Unknown{apiVersion, kind, raw}. */
export function encodeControlplaneObject<K extends ControlplaneKind>(
  kind: K,
  obj: ControlplaneKinds[K],
): Uint8Array {
  const info = kindInfo(kind);
  return encodeEnvelope({ apiVersion: info.apiVersion, kind }, codec.encode(info.fullName, obj));
}

export type DecodedControlplaneObject = {
  [K in ControlplaneKind]: { kind: K; object: ControlplaneKinds[K] };
}[ControlplaneKind];

/** Decodes an enveloped object, dispatching on its kind. Unknown kinds are PROTO_DECODE errors. */
export function decodeControlplaneObject(bytes: Uint8Array): DecodedControlplaneObject {
  const env = decodeEnvelope(bytes);
  const { apiVersion, kind } = env.typeMeta;
  const info = (KINDS as Record<string, KindInfo | undefined>)[kind];
  if (!info || info.apiVersion !== apiVersion) {
    throw new ProtoError('PROTO_DECODE', `unexpected object ${apiVersion}/${kind}`);
  }
  return { kind, object: codec.decode(info.fullName, env.raw) } as DecodedControlplaneObject;
}

/**
 * One watch frame carrying `obj`. For fan-out, encode the object once with
 * encodeControlplaneObject and frame it per watcher with k8s-proto's encodeWatchFrame.
 */
export function encodeWatchEventFrame<K extends ControlplaneKind>(
  type: WatchEventType,
  kind: K,
  obj: ControlplaneKinds[K],
): Uint8Array {
  return encodeWatchFrame(type, encodeControlplaneObject(kind, obj));
}

export type DecodedControlplaneWatchEvent = { type: WatchEventType } & DecodedControlplaneObject;

/** Decodes the object of a raw watch event (from WatchFrameDecoder). */
export function decodeControlplaneWatchEvent(event: RawWatchEvent): DecodedControlplaneWatchEvent {
  return { type: event.type, ...decodeControlplaneObject(event.object) };
}

// Named shorthands for the objects the controller serves and the agent reports.
export const encodeNetworkPolicy = (o: NetworkPolicy): Uint8Array => encodeControlplane('NetworkPolicy', o);
export const decodeNetworkPolicy = (b: Uint8Array): NetworkPolicy => decodeControlplane('NetworkPolicy', b);
export const encodeAddressGroup = (o: AddressGroup): Uint8Array => encodeControlplane('AddressGroup', o);
export const decodeAddressGroup = (b: Uint8Array): AddressGroup => decodeControlplane('AddressGroup', b);
export const encodeAppliedToGroup = (o: AppliedToGroup): Uint8Array =>
  encodeControlplane('AppliedToGroup', o);
export const decodeAppliedToGroup = (b: Uint8Array): AppliedToGroup =>
  decodeControlplane('AppliedToGroup', b);
export const encodeGroupMember = (o: GroupMember): Uint8Array => encodeControlplane('GroupMember', o);
export const decodeGroupMember = (b: Uint8Array): GroupMember => decodeControlplane('GroupMember', b);
export const decodeNetworkPolicyStatus = (b: Uint8Array): NetworkPolicyStatus =>
  decodeControlplane('NetworkPolicyStatus', b);
export const decodeNodeStatsSummary = (b: Uint8Array): NodeStatsSummary =>
  decodeControlplane('NodeStatsSummary', b);
