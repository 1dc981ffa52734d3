import { X509Certificate } from 'node:crypto';
import type { NsxObject, PolicyObject } from '../state/types.js';
import { expressionReferences, ipFamily, validateGroupExpression } from './group-expression.js';
import type { PolicyKind, PolicyTree } from './policy-tree.js';

export const ENFORCEMENT_POINT_PATH = '/infra/sites/default/enforcement-points/default';
export const CCP_COLLECTION = 'cluster-control-planes';

export function ccpPath(id: string): string {
  return `${ENFORCEMENT_POINT_PATH}/${CCP_COLLECTION}/${id}`;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function pathsIn(v: unknown): string[] {
  return strings(v).filter((s) => s.startsWith('/'));
}

/** source_groups / destination_groups / scope: "ANY" alone, policy paths, or IPs/CIDRs/ranges. */
function endpointErrors(field: string, v: unknown, allowIps: boolean): string[] {
  const list = strings(v);
  const errs: string[] = [];
  if (list.includes('ANY') && list.length > 1) errs.push(`${field}: "ANY" must be the only entry`);
  for (const s of list) {
    if (s === 'ANY' || s.startsWith('/')) continue;
    if (!allowIps || ipFamily(s) === 0) {
      errs.push(
        `${field}: "${s}" is not ${allowIps ? 'a group path, IP address, CIDR or range' : 'a policy path'}`,
      );
    }
  }
  return errs;
}

function isAntreaSpanned(tree: PolicyTree, policyPath: string): boolean {
  return tree.children(policyPath, 'container-cluster-span').length > 0;
}

/**
 * Policies applied to Antrea container clusters (notes §4): sources, destinations and applied-to
 * only Antrea groups (no literal IPs; no IP members in applied-to), services TCP/UDP destination
 * ports only, no Ethernet category.
 */
function antreaEndpointErrors(tree: PolicyTree, field: string, v: unknown, appliedTo: boolean): string[] {
  const errs: string[] = [];
  for (const s of strings(v)) {
    if (s === 'ANY') continue;
    if (!s.startsWith('/')) {
      errs.push(`${field}: "${s}" not allowed in a policy applied to Antrea clusters (only Antrea groups)`);
      continue;
    }
    const g = tree.get(s);
    if (!g) continue; // reported as an invalid path
    const types = Array.isArray(g['group_type']) ? (g['group_type'] as string[]) : [];
    if (!types.includes('ANTREA')) {
      errs.push(
        `${field}: ${s} is not an ANTREA group; policies applied to Antrea clusters accept only Antrea groups`,
      );
    } else if (
      appliedTo &&
      Array.isArray(g['expression']) &&
      (g['expression'] as NsxObject[]).some((e) => e['resource_type'] === 'IPAddressExpression')
    ) {
      errs.push(`${field}: ${s} has IP addresses and cannot be used as applied-to for Antrea clusters`);
    }
  }
  return errs;
}

function antreaServiceErrors(tree: PolicyTree, v: unknown): string[] {
  const errs: string[] = [];
  for (const s of pathsIn(v)) {
    for (const e of tree.children(s, 'service-entries')) {
      if (e.resource_type !== 'L4PortSetServiceEntry' || strings(e['source_ports']).length > 0) {
        errs.push(
          `services: ${s} entry ${e.id} is not TCP/UDP with destination ports only (Antrea clusters support only those)`,
        );
      }
    }
  }
  return errs;
}

export function antreaRuleErrors(tree: PolicyTree, rule: PolicyObject): string[] {
  return [
    ...antreaEndpointErrors(tree, 'source_groups', rule['source_groups'], false),
    ...antreaEndpointErrors(tree, 'destination_groups', rule['destination_groups'], false),
    ...antreaEndpointErrors(tree, 'scope', rule['scope'], true),
    ...antreaServiceErrors(tree, rule['services']),
    ...(rule['sources_excluded'] === true || rule['destinations_excluded'] === true
      ? ['negation (sources_excluded/destinations_excluded) is not supported for Antrea clusters']
      : []),
  ];
}

export function antreaPolicyErrors(tree: PolicyTree, policy: PolicyObject): string[] {
  return [
    ...(policy['category'] === 'Ethernet' ? ['category Ethernet is not supported for Antrea clusters'] : []),
    ...antreaEndpointErrors(tree, 'scope', policy['scope'], true),
  ];
}

const JUMP_ONLY_IN_ENVIRONMENT = 'action JUMP_TO_APPLICATION is only allowed in category Environment';

/** Stored rules of `policy` that its category does not allow (JUMP_TO_APPLICATION outside Environment). */
export function jumpRuleErrors(tree: PolicyTree, policy: PolicyObject): string[] {
  if (policy['category'] === 'Environment') return [];
  return tree
    .children(policy.path, 'rules')
    .filter((r) => r['action'] === 'JUMP_TO_APPLICATION')
    .map((r) => `rule ${r.id}: ${JUMP_ONLY_IN_ENVIRONMENT}`);
}

export const domainKind: PolicyKind = { resourceType: 'Domain', collection: 'domains' };

export const groupKind: PolicyKind = {
  resourceType: 'Group',
  collection: 'groups',
  readOnly: ['state'],
  validate: (obj) => validateGroupExpression(obj['expression'], obj['group_type']),
  references: (obj) => expressionReferences(obj['expression']),
};

export const serviceEntryKind: PolicyKind = {
  resourceType: 'L4PortSetServiceEntry',
  acceptedResourceTypes: [
    'L4PortSetServiceEntry',
    'ICMPTypeServiceEntry',
    'IGMPTypeServiceEntry',
    'IPProtocolServiceEntry',
    'ALGTypeServiceEntry',
    'EtherTypeServiceEntry',
    'NestedServiceServiceEntry',
  ],
  collection: 'service-entries',
  validate: (obj) => {
    const errs: string[] = [];
    if (obj.resource_type === 'L4PortSetServiceEntry') {
      if (obj['l4_protocol'] !== 'TCP' && obj['l4_protocol'] !== 'UDP') {
        errs.push('L4PortSetServiceEntry.l4_protocol must be TCP or UDP');
      }
      for (const p of [...strings(obj['destination_ports']), ...strings(obj['source_ports'])]) {
        const [a, b] = p.split('-').map(Number);
        if (a === undefined || a > 65535 || (b !== undefined && (b > 65535 || b < a))) {
          errs.push(`port "${p}" is not a port or ascending range within 0-65535`);
        }
      }
    }
    if (obj.resource_type === 'IPProtocolServiceEntry' && typeof obj['protocol_number'] !== 'number') {
      errs.push('IPProtocolServiceEntry.protocol_number is required');
    }
    if (obj.resource_type === 'NestedServiceServiceEntry' && typeof obj['nested_service_path'] !== 'string') {
      errs.push('NestedServiceServiceEntry.nested_service_path is required');
    }
    return errs;
  },
  references: (obj) => (typeof obj['nested_service_path'] === 'string' ? [obj['nested_service_path']] : []),
};

export const serviceKind: PolicyKind = {
  resourceType: 'Service',
  collection: 'services',
  embedded: { field: 'service_entries', kind: serviceEntryKind },
};

export const ruleKind: PolicyKind = {
  resourceType: 'Rule',
  collection: 'rules',
  readOnly: ['rule_id'],
  onCreate: (obj, tree) => {
    obj['rule_id'] = tree.nextRuleId();
    obj['action'] ??= 'ALLOW';
    obj['direction'] ??= 'IN_OUT';
    obj['ip_protocol'] ??= 'IPV4_IPV6';
    obj['sequence_number'] ??= 0;
    obj['logged'] ??= false;
    obj['disabled'] ??= false;
    obj['source_groups'] ??= ['ANY'];
    obj['destination_groups'] ??= ['ANY'];
    obj['services'] ??= ['ANY'];
    obj['scope'] ??= ['ANY'];
  },
  validate: (obj, { tree, pending }) => {
    const errs = [
      ...endpointErrors('source_groups', obj['source_groups'], true),
      ...endpointErrors('destination_groups', obj['destination_groups'], true),
      ...endpointErrors('scope', obj['scope'], false),
      ...endpointErrors('services', obj['services'], false),
    ];
    if (obj['action'] === 'JUMP_TO_APPLICATION') {
      // The policy as it will be after this write (created or changed together with its rules).
      const policy = pending.find((p) => p.path === obj.parent_path) ?? tree.get(obj.parent_path);
      if (policy?.['category'] !== 'Environment') errs.push(JUMP_ONLY_IN_ENVIRONMENT);
    }
    if (isAntreaSpanned(tree, obj.parent_path)) errs.push(...antreaRuleErrors(tree, obj));
    return errs;
  },
  references: (obj) => [
    ...pathsIn(obj['source_groups']),
    ...pathsIn(obj['destination_groups']),
    ...pathsIn(obj['scope']),
    ...pathsIn(obj['services']),
    ...pathsIn(obj['profiles']),
  ],
};

export const containerClusterSpanKind: PolicyKind = {
  resourceType: 'SecurityPolicyContainerCluster',
  collection: 'container-cluster-span',
  onCreate: (obj) => {
    obj['container_cluster_type'] ??= 'ANTREA';
  },
  validate: (obj, { tree }) => {
    const p = obj['container_cluster_path'];
    if (typeof p !== 'string' || !p.startsWith(`${ENFORCEMENT_POINT_PATH}/${CCP_COLLECTION}/`)) {
      return [`container_cluster_path must be a path under ${ENFORCEMENT_POINT_PATH}/${CCP_COLLECTION}/`];
    }
    const policy = tree.get(obj.parent_path);
    if (!policy) return [];
    return [
      ...antreaPolicyErrors(tree, policy),
      ...tree
        .children(policy.path, 'rules')
        .flatMap((r) => antreaRuleErrors(tree, r).map((e) => `rule ${r.id}: ${e}`)),
    ];
  },
  references: (obj) =>
    typeof obj['container_cluster_path'] === 'string' ? [obj['container_cluster_path']] : [],
};

export const securityPolicyKind: PolicyKind = {
  resourceType: 'SecurityPolicy',
  collection: 'security-policies',
  readOnly: ['internal_sequence_number', 'rule_count', 'lock_modified_by', 'lock_modified_time'],
  embedded: { field: 'rules', kind: ruleKind },
  onCreate: (obj) => {
    obj['category'] ??= 'Application';
    obj['sequence_number'] ??= 0;
    obj['stateful'] ??= true;
    obj['scope'] ??= ['ANY'];
  },
  validate: (obj, { tree, replacesEmbedded, childrenFollow }) => [
    ...endpointErrors('scope', obj['scope'], false),
    ...(isAntreaSpanned(tree, obj.path) ? antreaPolicyErrors(tree, obj) : []),
    // Rules kept from before must still fit the (possibly changed) category; rules in the body are
    // checked against this policy when they are validated. A hierarchical PATCH checks once its
    // nested rules are written too.
    ...(replacesEmbedded || childrenFollow ? [] : jumpRuleErrors(tree, obj)),
  ],
  references: (obj) => pathsIn(obj['scope']),
  render: (obj, tree) => ({ rule_count: tree.children(obj.path, 'rules').length }),
};

export const heartbeatConfigKind: PolicyKind = {
  resourceType: 'AntreaHeartbeatConfig',
  collection: 'heartbeat-config',
  onCreate: (obj) => {
    obj['report_interval'] ??= 60;
  },
};

/** Parses a PEM certificate; returns its SHA-256 fingerprint and subject CN, or an error string. */
export function inspectCertificate(pem: string): { fingerprint256: string; cn: string | undefined } | string {
  try {
    const cert = new X509Certificate(pem);
    const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
    return { fingerprint256: cert.fingerprint256, cn };
  } catch (err) {
    return `certificate is not a valid PEM X.509 certificate (${(err as Error).message})`;
  }
}

export const clusterControlPlaneKind: PolicyKind = {
  resourceType: 'ClusterControlPlane',
  acceptedResourceTypes: ['ClusterControlPlane', 'AntreaClusterControlPlane'],
  collection: CCP_COLLECTION,
  readOnly: ['node_id'],
  onCreate: (obj, tree, body) => {
    obj['node_id'] =
      typeof body['node_id'] === 'string' && body['node_id'] !== '' ? body['node_id'] : tree.newUuid();
    obj['node_type'] ??= 'ANTREA_NODE';
  },
  validate: (obj, { existing }) => {
    const pem = obj['certificate'];
    if (typeof pem !== 'string' || pem === '') {
      return existing ? [] : ['certificate is required when a cluster control plane is created'];
    }
    const info = inspectCertificate(pem);
    if (typeof info === 'string') return [info];
    return [];
  },
};

/** Finds a CCP other than `selfPath` registered with the same certificate. */
export function certificateOwner(tree: PolicyTree, pem: string, selfPath: string): PolicyObject | undefined {
  const mine = inspectCertificate(pem);
  if (typeof mine === 'string') return undefined;
  return tree
    .children(ENFORCEMENT_POINT_PATH, CCP_COLLECTION)
    .find(
      (c) =>
        c.path !== selfPath &&
        typeof c['certificate'] === 'string' &&
        sameCert(c['certificate'], mine.fingerprint256),
    );
}

function sameCert(pem: string, fp: string): boolean {
  const other = inspectCertificate(pem);
  return typeof other !== 'string' && other.fingerprint256 === fp;
}

export const traceflowKind: PolicyKind = {
  resourceType: 'AntreaTraceflowConfig',
  collection: 'traceflows',
  validate: (obj) => {
    const errs: string[] = [];
    const packet = obj['packet'] as NsxObject | undefined;
    const tcp = (packet?.['transport_header'] as NsxObject | undefined)?.['tcp_header'] as
      | NsxObject
      | undefined;
    if (tcp && typeof tcp['tcp_flags'] === 'number' && (tcp['tcp_flags'] & 0x02) === 0) {
      errs.push('packet.transport_header.tcp_header.tcp_flags must include SYN (0x2)');
    }
    if (packet?.['transport_type'] !== undefined && packet['transport_type'] !== 'UNICAST') {
      errs.push('only UNICAST traceflows are supported for Antrea clusters');
    }
    return errs;
  },
};

export const ALL_KINDS: PolicyKind[] = [
  domainKind,
  groupKind,
  serviceKind,
  securityPolicyKind,
  containerClusterSpanKind,
  clusterControlPlaneKind,
  heartbeatConfigKind,
  traceflowKind,
];
