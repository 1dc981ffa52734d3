// How Go's generated code treats each field, so our bytes match Antrea's and decoded objects have a
// stable shape. Keys are protobuf full names without the leading dot.

const CP = 'antrea_io.antrea.pkg.apis.controlplane.v1beta2.';
const STATS = 'antrea_io.antrea.pkg.apis.stats.v1alpha1.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const INTSTR = 'k8s.io.apimachinery.pkg.util.intstr.';

/**
 * Fields Go writes even when they hold the zero value: non-pointer scalars and struct values. Every
 * other singular field is a Go pointer (or a nil-able slice) and is written only when set.
 * Derived by reading each MarshalToSizedBuffer in antrea pkg/apis/controlplane/v1beta2,
 * pkg/apis/stats/v1alpha1 and apimachinery meta/v1, intstr generated.pb.go: a field is listed when
 * its tag is written outside any `if`. A message not listed writes no field unconditionally.
 */
export const GO_ALWAYS_WRITTEN: Readonly<Record<string, readonly string[]>> = {
  [`${CP}AddressGroup`]: ['metadata'],
  [`${CP}AddressGroupList`]: ['metadata'],
  [`${CP}AddressGroupPatch`]: ['metadata'],
  [`${CP}AppliedToGroup`]: ['metadata'],
  [`${CP}AppliedToGroupList`]: ['metadata'],
  [`${CP}AppliedToGroupPatch`]: ['metadata'],
  [`${CP}BasicAuthentication`]: ['username', 'password'],
  [`${CP}BundleFileServer`]: ['url'],
  [`${CP}BundleServerAuthConfiguration`]: ['bearerToken', 'apiKey'],
  [`${CP}ClusterGroupMembers`]: ['metadata', 'totalMembers', 'totalPages', 'currentPage'],
  [`${CP}EgressGroup`]: ['metadata'],
  [`${CP}EgressGroupList`]: ['metadata'],
  [`${CP}EgressGroupPatch`]: ['metadata'],
  [`${CP}ExternalEntityReference`]: ['name', 'namespace'],
  [`${CP}GroupAssociation`]: ['metadata'],
  [`${CP}GroupMembers`]: ['metadata', 'totalMembers', 'totalPages', 'currentPage'],
  [`${CP}GroupReference`]: ['namespace', 'name', 'uid'],
  [`${CP}HTTPProtocol`]: ['host', 'method', 'path'],
  [`${CP}IPBlock`]: ['cidr'],
  [`${CP}IPGroupAssociation`]: ['metadata'],
  [`${CP}IPNet`]: ['prefixLength'],
  [`${CP}MulticastGroupInfo`]: ['group'],
  [`${CP}NamedPort`]: ['port', 'name', 'protocol'],
  [`${CP}NetworkPolicy`]: ['metadata'],
  [`${CP}NetworkPolicyEvaluation`]: ['metadata'],
  [`${CP}NetworkPolicyEvaluationRequest`]: ['source', 'destination'],
  [`${CP}NetworkPolicyEvaluationResponse`]: ['networkPolicy', 'ruleIndex', 'rule'],
  [`${CP}NetworkPolicyList`]: ['metadata'],
  [`${CP}NetworkPolicyNodeStatus`]: ['nodeName', 'generation', 'realizationFailure', 'message'],
  [`${CP}NetworkPolicyReference`]: ['type', 'namespace', 'name', 'uid'],
  [`${CP}NetworkPolicyRule`]: ['direction', 'from', 'to', 'priority', 'enableLogging', 'name', 'logLabel'],
  [`${CP}NetworkPolicyStats`]: ['networkPolicy', 'trafficStats'],
  [`${CP}NetworkPolicyStatus`]: ['metadata'],
  [`${CP}NodeReference`]: ['name'],
  [`${CP}NodeStatsSummary`]: ['metadata'],
  [`${CP}PaginationGetOptions`]: ['page', 'limit'],
  [`${CP}PodReference`]: ['name', 'namespace'],
  [`${CP}RuleRef`]: ['direction', 'name'],
  [`${CP}Service`]: ['groupAddress'],
  [`${CP}ServiceReference`]: ['name', 'namespace'],
  [`${CP}SupportBundleCollection`]: ['metadata', 'expiredAt', 'sinceTime', 'fileServer', 'authentication'],
  [`${CP}SupportBundleCollectionList`]: ['metadata'],
  [`${CP}SupportBundleCollectionNodeStatus`]: ['nodeName', 'nodeNamespace', 'nodeType', 'completed', 'error'],
  [`${CP}SupportBundleCollectionStatus`]: ['metadata'],
  [`${CP}TLSProtocol`]: ['sni'],
  [`${STATS}RuleTrafficStats`]: ['name', 'trafficStats'],
  [`${STATS}TrafficStats`]: ['packets', 'bytes', 'sessions'],
  [`${META}ListMeta`]: ['selfLink', 'resourceVersion', 'continue'],
  [`${META}ManagedFieldsEntry`]: ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource'],
  [`${META}ObjectMeta`]: [
    'name',
    'generateName',
    'namespace',
    'selfLink',
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
  ],
  [`${META}OwnerReference`]: ['kind', 'name', 'uid', 'apiVersion'],
  [`${META}ShardInfo`]: ['selector'],
  [`${META}Status`]: ['metadata', 'status', 'message', 'reason', 'code'],
  [`${META}StatusCause`]: ['reason', 'message', 'field'],
  [`${META}StatusDetails`]: ['name', 'group', 'kind', 'retryAfterSeconds', 'uid'],
  [`${INTSTR}IntOrString`]: ['type', 'intVal', 'strVal'],
};

/**
 * Fields a decoded object always carries, even when the wire held the zero value or nothing: the
 * fields the plain TS interfaces (packages/apis/src/controlplane/types.ts) declare as required,
 * plus fields Go's JSON renders without omitempty. Every other zero-valued Go value field is left
 * out, as Go's JSON omitempty would. Struct-valued fields in GO_ALWAYS_WRITTEN are always present.
 * Align this table, not the codec, when the TS interfaces change.
 */
export const DECODE_KEEP_ZERO: Readonly<Record<string, readonly string[]>> = {
  [`${CP}AddressGroupList`]: ['items'],
  [`${CP}AppliedToGroupList`]: ['items'],
  [`${CP}BasicAuthentication`]: ['username', 'password'],
  [`${CP}BundleFileServer`]: ['url'],
  [`${CP}ClusterGroupMembers`]: [
    'effectiveMembers',
    'effectiveIPBlocks',
    'totalMembers',
    'totalPages',
    'currentPage',
  ],
  [`${CP}EgressGroupList`]: ['items'],
  [`${CP}ExternalEntityReference`]: ['name', 'namespace'],
  [`${CP}GroupAssociation`]: ['associatedGroups'],
  [`${CP}GroupMembers`]: [
    'effectiveMembers',
    'effectiveIPBlocks',
    'totalMembers',
    'totalPages',
    'currentPage',
  ],
  [`${CP}IPGroupAssociation`]: ['associatedGroups'],
  [`${CP}IPNet`]: ['ip', 'prefixLength'],
  [`${CP}NamedPort`]: ['port', 'name', 'protocol'],
  [`${CP}NetworkPolicyList`]: ['items'],
  [`${CP}NetworkPolicyNodeStatus`]: ['nodeName', 'generation', 'realizationFailure'],
  [`${CP}NetworkPolicyReference`]: ['type', 'name', 'uid'],
  [`${CP}NetworkPolicyRule`]: ['direction', 'priority', 'enableLogging'],
  [`${CP}NodeReference`]: ['name'],
  [`${CP}PaginationGetOptions`]: ['page', 'limit'],
  [`${CP}PodReference`]: ['name', 'namespace'],
  [`${CP}ServiceReference`]: ['name', 'namespace'],
  [`${CP}SupportBundleCollectionList`]: ['items'],
  [`${STATS}TrafficStats`]: ['packets', 'bytes', 'sessions'],
  [`${META}ObjectMeta`]: ['name'],
  [`${META}OwnerReference`]: ['apiVersion', 'kind', 'name', 'uid'],
  [`${META}ShardInfo`]: ['selector'],
};
