import { type CrdNames, defineCrd } from '../crd/schemas/define.js';
import {
  arr,
  type CustomResourceDefinition,
  int,
  intRange,
  type JSONSchemaProps,
  obj,
  type PrinterColumn,
  str,
  strEnum,
} from '../crd/schemas/openapi.js';
import { ANP_MAX_PRIORITY, BANP_NAME, POLICY_API_KINDS } from './types.js';

// The v1alpha1 CRDs of kubernetes-sigs/network-policy-api (standard channel, v0.1.x), written from
// the API's rules: exactly one member per subject, peer and port; at most 100 rules per direction,
// 100 peers and 100 ports per rule; priorities 0..1000; one BANP named "default".
// Beyond the standard channel's v0.1.7 schema: the egress `nodes` peer (experimental channel; Antrea
// translates it) and the portRange rule start < end (the API documents it). Not carried over: the
// list/map-type markers: atomic selectors (merges only) and `networks` as a set, so a
// repeated CIDR is accepted here.

const labelSelector = (): JSONSchemaProps =>
  obj({
    matchExpressions: arr(
      obj({ key: str(), operator: str(), values: arr(str()) }, { required: ['key', 'operator'] }),
    ),
    matchLabels: { type: 'object', additionalProperties: str() },
  });

const namespacedPod = (): JSONSchemaProps =>
  obj(
    { namespaceSelector: labelSelector(), podSelector: labelSelector() },
    { required: ['namespaceSelector', 'podSelector'] },
  );

const exactlyOne = { minProperties: 1, maxProperties: 1 };

const subject = (): JSONSchemaProps =>
  obj({ namespaces: labelSelector(), pods: namespacedPod() }, exactlyOne);

const port = (): JSONSchemaProps => ({ type: 'integer', format: 'int32', minimum: 1, maximum: 65535 });
const protocol = (): JSONSchemaProps => ({ type: 'string', default: 'TCP' });

const ports = (): JSONSchemaProps =>
  arr(
    obj(
      {
        portNumber: obj({ port: port(), protocol: protocol() }, { required: ['port', 'protocol'] }),
        namedPort: str(),
        portRange: obj(
          { start: port(), end: port(), protocol: protocol() },
          {
            required: ['start', 'end'],
            'x-kubernetes-validations': [
              { rule: 'self.start < self.end', message: 'Start port must be smaller than End port' },
            ],
          },
        ),
      },
      exactlyOne,
    ),
    { minItems: 1, maxItems: 100 },
  );

const networks = (): JSONSchemaProps =>
  arr(
    str({
      maxLength: 43,
      'x-kubernetes-validations': [{ rule: 'isCIDR(self)', message: 'Invalid CIDR format provided' }],
    }),
    { minItems: 1, maxItems: 25 },
  );

const peers = (egress: boolean): JSONSchemaProps =>
  arr(
    obj(
      {
        namespaces: labelSelector(),
        pods: namespacedPod(),
        ...(egress ? { nodes: labelSelector(), networks: networks() } : {}),
      },
      exactlyOne,
    ),
    { minItems: 1, maxItems: 100 },
  );

const rules = (actions: readonly string[], egress: boolean): JSONSchemaProps =>
  arr(
    obj(
      {
        name: str({ maxLength: 100 }),
        action: strEnum(actions),
        [egress ? 'to' : 'from']: peers(egress),
        ports: ports(),
      },
      { required: ['action', egress ? 'to' : 'from'] },
    ),
    { maxItems: 100 },
  );

const status = (): JSONSchemaProps =>
  obj(
    {
      conditions: arr(
        obj(
          {
            type: str({ maxLength: 316 }),
            status: strEnum(['True', 'False', 'Unknown']),
            observedGeneration: int({ format: 'int64', minimum: 0 }),
            lastTransitionTime: str({ format: 'date-time' }),
            reason: str({ maxLength: 1024 }),
            message: str({ maxLength: 32768 }),
          },
          { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
        ),
      ),
    },
    { required: ['conditions'] },
  );

function policyApiCrd(
  info: CrdNames,
  spec: JSONSchemaProps,
  printerColumns: PrinterColumn[],
  rootValidations?: JSONSchemaProps['x-kubernetes-validations'],
): CustomResourceDefinition {
  const crd = defineCrd(info, {
    printerColumns,
    statusSubresource: true,
    schema: obj(
      { apiVersion: str(), kind: str(), metadata: { type: 'object' }, spec, status: status() },
      {
        required: ['metadata', 'spec'],
        ...(rootValidations ? { 'x-kubernetes-validations': rootValidations } : {}),
      },
    ),
  });
  // kube-apiserver refuses CRDs of *.k8s.io groups without the link to their API review; the
  // network-policy-api CRDs carry this one, with the bundle version these schemas follow.
  crd.metadata.annotations = {
    'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/network-policy-api/pull/300',
    'policy.networking.k8s.io/bundle-version': 'v0.1.7',
    'policy.networking.k8s.io/channel': 'standard',
  };
  return crd;
}

const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;

export function adminNetworkPolicyCrd(): CustomResourceDefinition {
  return policyApiCrd(
    POLICY_API_KINDS.AdminNetworkPolicy,
    obj(
      {
        priority: intRange(0, ANP_MAX_PRIORITY),
        subject: subject(),
        ingress: rules(['Allow', 'Deny', 'Pass'], false),
        egress: rules(['Allow', 'Deny', 'Pass'], true),
      },
      { required: ['priority', 'subject'] },
    ),
    // Upstream prints the priority as a string column.
    [{ name: 'Priority', type: 'string', jsonPath: '.spec.priority' }, AGE],
  );
}

export function baselineAdminNetworkPolicyCrd(): CustomResourceDefinition {
  return policyApiCrd(
    POLICY_API_KINDS.BaselineAdminNetworkPolicy,
    obj(
      {
        subject: subject(),
        ingress: rules(['Allow', 'Deny'], false),
        egress: rules(['Allow', 'Deny'], true),
      },
      { required: ['subject'] },
    ),
    [AGE],
    [
      {
        rule: `self.metadata.name == '${BANP_NAME}'`,
        message: `Only one baseline admin network policy with metadata.name="${BANP_NAME}" can be created in the cluster`,
      },
    ],
  );
}

/** Both CRDs, installed beside the crd.antrea.io ones. */
export function policyApiCrds(): CustomResourceDefinition[] {
  return [adminNetworkPolicyCrd(), baselineAdminNetworkPolicyCrd()];
}
