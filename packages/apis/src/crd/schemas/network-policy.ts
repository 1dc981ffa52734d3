import { CRD_KINDS } from '../kinds.js';
import {
  HTTP_METHODS,
  IGMP_QUERY,
  IGMP_REPORT_V1,
  IGMP_REPORT_V2,
  IGMP_REPORT_V3,
  PEER_SCOPES,
  POLICY_PRIORITY_MAX,
  POLICY_PRIORITY_MIN,
  PORT_PROTOCOLS,
  RULE_ACTIONS,
} from '../network-policy.js';
import { ageColumn, conditions, labelSelector, namespacedName } from './common.js';
import { defineCrd } from './define.js';
import {
  arr,
  bool,
  type CustomResourceDefinition,
  cidr,
  int,
  intOrString,
  intRange,
  ipAddress,
  type JSONSchemaProps,
  num,
  obj,
  type PrinterColumn,
  str,
  strEnum,
} from './openapi.js';

/** logLabel is printed in policy audit logs: a label-value-like token of at most 63 characters. */
export const LOG_LABEL_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$';

// Each position in a policy (spec.appliedTo, rule appliedTo, from, to) accepts a different subset of
// these selector fields, and the subsets differ between ClusterNetworkPolicy and NetworkPolicy.
// Listing them per position reproduces Antrea's schemas: a field not listed is pruned on write, so
// e.g. a namespaceSelector in an Antrea NetworkPolicy's appliedTo silently disappears, as in Antrea.
const selectorFields = {
  podSelector: () => labelSelector(),
  namespaceSelector: () => labelSelector(),
  externalEntitySelector: () => labelSelector(),
  nodeSelector: () => labelSelector(),
  namespaces: () =>
    obj({ match: strEnum(['Self']), sameLabels: arr(str()) }, { minProperties: 1, maxProperties: 1 }),
  // As in Antrea, the schema leaves cidr optional; semantic checks belong to the admission webhook.
  ipBlock: () => obj({ cidr: cidr(), except: arr(cidr()) }),
  group: () => str(),
  fqdn: () => str(),
  serviceAccount: namespacedName,
  service: namespacedName,
  scope: () => strEnum(PEER_SCOPES),
} satisfies Record<string, () => JSONSchemaProps>;

type SelectorField = keyof typeof selectorFields;

function selectors(...fields: SelectorField[]): JSONSchemaProps {
  return obj(Object.fromEntries(fields.map((f) => [f, selectorFields[f]()])));
}

interface RuleShape {
  direction: 'ingress' | 'egress';
  appliedTo: SelectorField[];
  peers: SelectorField[];
  toServices?: JSONSchemaProps;
}

function rule(shape: RuleShape): JSONSchemaProps {
  // Ingress rules can only match IGMP queries, egress rules only IGMP reports (any version).
  const igmpTypes =
    shape.direction === 'ingress' ? [IGMP_QUERY] : [IGMP_REPORT_V1, IGMP_REPORT_V2, IGMP_REPORT_V3];
  return obj(
    {
      appliedTo: arr(selectors(...shape.appliedTo)),
      action: strEnum(RULE_ACTIONS),
      ports: arr(
        obj({
          protocol: strEnum(PORT_PROTOCOLS),
          port: intOrString(),
          endPort: int(),
          sourcePort: int(),
          sourceEndPort: int(),
        }),
      ),
      protocols: arr(
        obj(
          {
            icmp: obj({ icmpType: intRange(0, 255), icmpCode: intRange(0, 255) }),
            igmp: obj({ igmpType: int({ enum: igmpTypes }), groupAddress: ipAddress() }),
          },
          { oneOf: [{ required: ['icmp'] }, { required: ['igmp'] }] },
        ),
      ),
      l7Protocols: arr(
        obj(
          {
            http: obj({ host: str(), method: strEnum(HTTP_METHODS), path: str() }),
            tls: obj({ sni: str() }),
          },
          { oneOf: [{ required: ['http'] }, { required: ['tls'] }] },
        ),
      ),
      [shape.direction === 'ingress' ? 'from' : 'to']: arr(selectors(...shape.peers)),
      ...(shape.toServices ? { toServices: shape.toServices } : {}),
      name: str(),
      enableLogging: bool(),
      logLabel: str({ pattern: LOG_LABEL_PATTERN }),
    },
    { required: ['action'] },
  );
}

interface PolicyShape {
  appliedTo: SelectorField[];
  ingress: Omit<RuleShape, 'direction'>;
  egress: Omit<RuleShape, 'direction'>;
}

function policySchema(shape: PolicyShape): JSONSchemaProps {
  return obj({
    spec: obj(
      {
        tier: str(),
        priority: num({ format: 'float', minimum: POLICY_PRIORITY_MIN, maximum: POLICY_PRIORITY_MAX }),
        appliedTo: arr(selectors(...shape.appliedTo)),
        ingress: arr(rule({ direction: 'ingress', ...shape.ingress })),
        egress: arr(rule({ direction: 'egress', ...shape.egress })),
      },
      { required: ['priority'] },
    ),
    status: obj({
      phase: str(),
      observedGeneration: int(),
      currentNodesRealized: int(),
      desiredNodesRealized: int(),
      conditions: conditions(),
    }),
  });
}

function policyColumns(what: string): PrinterColumn[] {
  return [
    {
      name: 'Tier',
      type: 'string',
      description: `The Tier to which this ${what} belongs to.`,
      jsonPath: '.spec.tier',
    },
    {
      name: 'Priority',
      type: 'number',
      format: 'float',
      description: `The Priority of this ${what} relative to other policies.`,
      jsonPath: '.spec.priority',
    },
    {
      name: 'Desired Nodes',
      type: 'number',
      format: 'int32',
      description: 'The total number of Nodes that should realize the NetworkPolicy.',
      jsonPath: '.status.desiredNodesRealized',
    },
    {
      name: 'Current Nodes',
      type: 'number',
      format: 'int32',
      description: 'The number of Nodes that have realized the NetworkPolicy.',
      jsonPath: '.status.currentNodesRealized',
    },
    ageColumn,
  ];
}

export function clusterNetworkPolicyCrd(): CustomResourceDefinition {
  return defineCrd(CRD_KINDS.ClusterNetworkPolicy, {
    printerColumns: policyColumns('ClusterNetworkPolicy'),
    statusSubresource: true,
    schema: policySchema({
      appliedTo: ['podSelector', 'namespaceSelector', 'group', 'serviceAccount', 'service', 'nodeSelector'],
      ingress: {
        appliedTo: ['podSelector', 'namespaceSelector', 'group', 'serviceAccount', 'service'],
        peers: [
          'podSelector',
          'namespaceSelector',
          'namespaces',
          'ipBlock',
          'group',
          'serviceAccount',
          'nodeSelector',
          'scope',
        ],
      },
      egress: {
        appliedTo: ['podSelector', 'namespaceSelector', 'group', 'serviceAccount'],
        peers: [
          'podSelector',
          'namespaceSelector',
          'namespaces',
          'ipBlock',
          'group',
          'fqdn',
          'serviceAccount',
          'nodeSelector',
        ],
        toServices: arr(
          obj(
            { name: str(), namespace: str(), scope: strEnum(PEER_SCOPES) },
            { required: ['name', 'namespace'] },
          ),
        ),
      },
    }),
  });
}

export function antreaNetworkPolicyCrd(): CustomResourceDefinition {
  return defineCrd(CRD_KINDS.NetworkPolicy, {
    printerColumns: policyColumns('Antrea NetworkPolicy'),
    statusSubresource: true,
    schema: policySchema({
      // A namespaced policy cannot select other Namespaces' workloads.
      appliedTo: ['externalEntitySelector', 'podSelector', 'group'],
      ingress: {
        appliedTo: ['podSelector', 'group'],
        peers: [
          'podSelector',
          'namespaceSelector',
          'externalEntitySelector',
          'ipBlock',
          'nodeSelector',
          'group',
          'scope',
        ],
      },
      egress: {
        appliedTo: ['podSelector', 'group'],
        peers: [
          'podSelector',
          'namespaceSelector',
          'externalEntitySelector',
          'ipBlock',
          'fqdn',
          'nodeSelector',
          'group',
        ],
        // Namespace defaults to the policy's own; Antrea leaves scope unchecked here.
        toServices: arr(obj({ name: str(), namespace: str(), scope: str() }, { required: ['name'] })),
      },
    }),
  });
}
