import {
  CONDITION_KEYS,
  CONDITION_MEMBER_TYPES,
  CONDITION_OPERATORS,
  EXPRESSION_TYPES,
} from './group-expression.js';

/**
 * JSON schemas (fastify/ajv) for request bodies. They check shapes and enums; semantic rules live in
 * the kinds' `validate`. Unknown fields are allowed (NSX objects carry many optional fields).
 */

const tag = {
  type: 'object',
  properties: { scope: { type: 'string', maxLength: 128 }, tag: { type: 'string', maxLength: 256 } },
};

export const envelopeProperties = {
  id: { type: 'string' },
  display_name: { type: 'string', maxLength: 255 },
  description: { type: 'string', maxLength: 1024 },
  resource_type: { type: 'string' },
  tags: { type: 'array', maxItems: 30, items: tag },
  _revision: { type: 'integer', minimum: 0 },
} as const;

const stringArray = { type: 'array', items: { type: 'string' } } as const;

const condition = {
  type: 'object',
  required: ['resource_type', 'member_type', 'key', 'operator'],
  properties: {
    resource_type: { const: 'Condition' },
    member_type: { enum: CONDITION_MEMBER_TYPES },
    key: { enum: CONDITION_KEYS },
    operator: { enum: CONDITION_OPERATORS },
    value: { type: 'string' },
    scope_operator: { enum: ['EQUALS', 'NOTEQUALS'] },
    exclude: { type: 'object' },
  },
};

const conjunction = {
  type: 'object',
  required: ['resource_type', 'conjunction_operator'],
  properties: {
    resource_type: { const: 'ConjunctionOperator' },
    conjunction_operator: { enum: ['AND', 'OR'] },
  },
};

/** JSON-schema if/then pair (built from entries: a literal `then` key makes objects thenable). */
function when(resourceType: string, then: object): object {
  return Object.fromEntries([
    ['if', { properties: { resource_type: { const: resourceType } } }],
    ['then', then],
  ]);
}

const expression = {
  type: 'object',
  required: ['resource_type'],
  properties: { resource_type: { enum: EXPRESSION_TYPES } },
  allOf: [
    when('Condition', condition),
    when('ConjunctionOperator', conjunction),
    when('NestedExpression', {
      required: ['expressions'],
      properties: { expressions: { type: 'array', items: { type: 'object' } } },
    }),
    when('IPAddressExpression', { required: ['ip_addresses'], properties: { ip_addresses: stringArray } }),
    when('PathExpression', { required: ['paths'], properties: { paths: stringArray } }),
    when('MACAddressExpression', { required: ['mac_addresses'], properties: { mac_addresses: stringArray } }),
    when('ExternalIDExpression', {
      required: ['member_type', 'external_ids'],
      properties: { member_type: { type: 'string' }, external_ids: stringArray },
    }),
  ],
};

export const domainBody = { type: 'object', properties: { ...envelopeProperties } };

export const groupBody = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    expression: { type: 'array', items: expression },
    extended_expression: { type: 'array', items: { type: 'object' } },
    group_type: { type: 'array', items: { enum: ['IPAddress', 'ANTREA', 'BareMetalServer'] } },
    reference: { type: 'boolean' },
  },
};

const serviceEntry = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    resource_type: {
      enum: [
        'L4PortSetServiceEntry',
        'ICMPTypeServiceEntry',
        'IGMPTypeServiceEntry',
        'IPProtocolServiceEntry',
        'ALGTypeServiceEntry',
        'EtherTypeServiceEntry',
        'NestedServiceServiceEntry',
      ],
    },
    l4_protocol: { enum: ['TCP', 'UDP'] },
    destination_ports: {
      type: 'array',
      maxItems: 15,
      items: { type: 'string', pattern: '^\\d{1,5}(-\\d{1,5})?$' },
    },
    source_ports: {
      type: 'array',
      maxItems: 15,
      items: { type: 'string', pattern: '^\\d{1,5}(-\\d{1,5})?$' },
    },
    protocol_number: { type: 'integer', minimum: 0, maximum: 255 },
    protocol: { enum: ['ICMPv4', 'ICMPv6'] },
    icmp_type: { type: 'integer', minimum: 0, maximum: 255 },
    icmp_code: { type: 'integer', minimum: 0, maximum: 255 },
    nested_service_path: { type: 'string' },
  },
};

export const serviceEntryBody = { ...serviceEntry, required: ['resource_type'] };

export const serviceBody = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    service_entries: { type: 'array', items: serviceEntryBody },
    service_type: { type: 'string' },
    is_default: { type: 'boolean' },
  },
};

const rule = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    resource_type: { const: 'Rule' },
    source_groups: stringArray,
    destination_groups: stringArray,
    sources_excluded: { type: 'boolean' },
    destinations_excluded: { type: 'boolean' },
    services: stringArray,
    service_entries: { type: 'array', items: serviceEntryBody },
    scope: stringArray,
    profiles: stringArray,
    action: { enum: ['ALLOW', 'DROP', 'REJECT', 'JUMP_TO_APPLICATION'] },
    direction: { enum: ['IN', 'OUT', 'IN_OUT'] },
    ip_protocol: { enum: ['IPV4', 'IPV6', 'IPV4_IPV6'] },
    sequence_number: { type: 'integer', minimum: 0 },
    logged: { type: 'boolean' },
    disabled: { type: 'boolean' },
    notes: { type: 'string', maxLength: 2048 },
    tag: { type: 'string', maxLength: 32 },
    is_default: { type: 'boolean' },
  },
};

export const ruleBody = rule;

export const securityPolicyBody = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    resource_type: { const: 'SecurityPolicy' },
    category: { enum: ['Ethernet', 'Emergency', 'Infrastructure', 'Environment', 'Application', 'Default'] },
    sequence_number: { type: 'integer', minimum: 0, maximum: 999999 },
    scope: stringArray,
    rules: { type: 'array', items: rule },
    stateful: { type: 'boolean' },
    tcp_strict: { type: 'boolean' },
    locked: { type: 'boolean' },
    comments: { type: 'string' },
    connectivity_preference: {
      enum: ['ALLOWLIST', 'DENYLIST', 'ALLOWLIST_ENABLE_LOGGING', 'DENYLIST_ENABLE_LOGGING', 'NONE'],
    },
  },
};

export const containerClusterSpanBody = {
  type: 'object',
  required: ['container_cluster_path'],
  properties: {
    ...envelopeProperties,
    resource_type: { const: 'SecurityPolicyContainerCluster' },
    container_cluster_path: { type: 'string' },
    container_cluster_type: { enum: ['ANTREA'] },
  },
};

export const clusterControlPlaneBody = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    resource_type: { enum: ['ClusterControlPlane', 'AntreaClusterControlPlane'] },
    certificate: { type: 'string' },
    node_id: { type: 'string' },
    node_type: { enum: ['ANTREA_NODE', 'BM_NODE'] },
    vhc_path: { type: 'string' },
  },
};

export const heartbeatConfigBody = {
  type: 'object',
  properties: {
    ...envelopeProperties,
    resource_type: { const: 'AntreaHeartbeatConfig' },
    report_interval: { type: 'integer', minimum: 60, maximum: 600 },
  },
};

const componentStatus = {
  type: 'object',
  properties: {
    status: { enum: ['UP', 'DOWN', 'DEGRADED', 'UNKNOWN', 'HEALTHY', 'FAILED'] },
    connected_agent_num: { type: 'integer', minimum: 0 },
    conditions: { type: 'array', items: { type: 'object' } },
  },
};

export const antreaClusterInfoBody = {
  type: 'object',
  properties: {
    resource_type: { const: 'AntreaClusterInfo' },
    controller_status: componentStatus,
    mp_adapter_status: componentStatus,
    ccp_adapter_status: componentStatus,
    agent_info: {
      type: 'object',
      properties: {
        healthy_agent_num: { type: 'integer', minimum: 0 },
        degraded_agent_num: { type: 'integer', minimum: 0 },
        failed_agent_num: { type: 'integer', minimum: 0 },
      },
    },
  },
};

const port = { type: 'integer', minimum: 0, maximum: 65535 };

export const traceflowConfigBody = {
  type: 'object',
  required: ['container_cluster_id', 'source_external_id', 'packet'],
  properties: {
    ...envelopeProperties,
    resource_type: { const: 'AntreaTraceflowConfig' },
    container_cluster_id: { type: 'string', minLength: 1 },
    source_external_id: { type: 'string', minLength: 1 },
    destination_external_id: { type: 'string' },
    is_transient: { type: 'boolean' },
    packet: {
      type: 'object',
      required: ['resource_type'],
      properties: {
        resource_type: { enum: ['FIELDS_PACKET_DATA', 'BINARY_PACKET_DATA'] },
        frame_size: { type: 'integer', minimum: 60, maximum: 1000 },
        payload: { type: 'string' },
        transport_type: { enum: ['UNICAST', 'MULTICAST', 'BROADCAST', 'UNKNOWN'] },
        ip_header: {
          type: 'object',
          properties: {
            src_ip: { type: 'string' },
            dst_ip: { type: 'string' },
            protocol: { type: 'integer', minimum: 0, maximum: 255 },
            ttl: { type: 'integer', minimum: 0, maximum: 255 },
            flags: { type: 'integer' },
          },
        },
        ipv6_header: { type: 'object' },
        transport_header: {
          type: 'object',
          properties: {
            tcp_header: {
              type: 'object',
              properties: { src_port: port, dst_port: port, tcp_flags: { type: 'integer' } },
            },
            udp_header: { type: 'object', properties: { src_port: port, dst_port: port } },
            icmp_echo_request_header: { type: 'object' },
          },
        },
      },
    },
  },
};
