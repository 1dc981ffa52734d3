import { describe, expect, it } from 'vitest';
import { antreaCrds, crdFor } from './crds.js';
import { CRD_KINDS, type CrdKind } from './kinds.js';
import type { JSONSchemaProps } from './schemas/index.js';

const kinds = Object.keys(CRD_KINDS) as CrdKind[];

/** Follows a dotted path of property names (and "[]" for array items) into a schema. */
function at(schema: JSONSchemaProps, path: string): JSONSchemaProps {
  let node = schema;
  for (const part of path.split('.')) {
    const next = part === '[]' ? node.items : node.properties?.[part];
    if (!next) throw new Error(`no ${part} in ${path}`);
    node = next;
  }
  return node;
}

const stored = (kind: CrdKind) => crdFor(kind).spec.versions.find((v) => v.storage)!;
const root = (kind: CrdKind) => stored(kind).schema.openAPIV3Schema;
const propsOf = (kind: CrdKind, path: string) => Object.keys(at(root(kind), path).properties ?? {});

/**
 * The subset of the apiextensions structural-schema rules our schemas could break; kube-apiserver
 * refuses a v1 CRD that breaks them, which the integration test would only show much later.
 */
function structuralProblems(
  node: JSONSchemaProps,
  path: string,
  inCombinator = false,
  // The object whose properties a (possibly nested) oneOf/anyOf branch's required names refer to.
  owner: JSONSchemaProps = node,
): string[] {
  const problems: string[] = [];
  const special = node['x-kubernetes-int-or-string'] || node['x-kubernetes-preserve-unknown-fields'];
  if (inCombinator) {
    for (const key of [
      'type',
      'description',
      'default',
      'additionalProperties',
      'properties',
      'items',
    ] as const) {
      if (key in node) problems.push(`${path}: ${key} inside oneOf/anyOf`);
    }
  } else if (!node.type && !special) {
    problems.push(`${path}: no type`);
  }
  if (node.properties && node.type !== 'object') problems.push(`${path}: properties on a non-object`);
  if (node.items && node.type !== 'array') problems.push(`${path}: items on a non-array`);
  if (node.type === 'array' && !node.items) problems.push(`${path}: array without items`);
  if (node.properties && node.additionalProperties)
    problems.push(`${path}: properties and additionalProperties`);
  // A oneOf/anyOf branch's required names refer to its parent's properties, checked below.
  for (const name of inCombinator ? [] : (node.required ?? [])) {
    if (!node.properties?.[name]) problems.push(`${path}: required ${name} is not a property`);
  }
  const branchOwner = inCombinator ? owner : node;
  for (const [i, branch] of [...(node.oneOf ?? []), ...(node.anyOf ?? [])].entries()) {
    problems.push(...structuralProblems(branch, `${path}.<branch ${i}>`, true, branchOwner));
    for (const name of branch.required ?? []) {
      if (!branchOwner.properties?.[name]) problems.push(`${path}: branch requires unknown ${name}`);
    }
  }
  for (const value of node.enum ?? []) {
    const expected = node.type === 'integer' || node.type === 'number' ? 'number' : 'string';
    if (typeof value !== expected) problems.push(`${path}: enum value ${value} is not a ${node.type}`);
  }
  if (node.default !== undefined && node.type === 'integer' && !Number.isInteger(node.default)) {
    problems.push(`${path}: default is not an integer`);
  }
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    problems.push(...structuralProblems(child, `${path}.${name}`));
  }
  if (node.items) problems.push(...structuralProblems(node.items, `${path}[]`));
  if (node.additionalProperties) problems.push(...structuralProblems(node.additionalProperties, `${path}{}`));
  return problems;
}

describe('antreaCrds', () => {
  it('has one CRD per CRD_KINDS entry, named and versioned from it', () => {
    const crds = antreaCrds();
    expect(crds.map((c) => c.spec.names.kind)).toEqual(kinds);
    for (const crd of crds) {
      const info = CRD_KINDS[crd.spec.names.kind as CrdKind];
      expect(crd.metadata.name).toBe(`${info.plural}.crd.antrea.io`);
      expect(crd.spec.group).toBe('crd.antrea.io');
      expect(crd.spec.scope).toBe(info.namespaced ? 'Namespaced' : 'Cluster');
      expect(crd.spec.names).toEqual({
        plural: info.plural,
        singular: info.singular,
        kind: info.kind,
        shortNames: info.shortNames,
      });
      // Exactly one stored version, info.version; older served ones only where Antrea keeps them.
      expect(crd.spec.versions.filter((v) => v.storage).map((v) => v.name)).toEqual([info.version]);
      expect(crd.spec.versions.every((v) => v.served)).toBe(true);
      expect(crd.metadata.labels).toEqual({ app: 'antrea' });
    }
  });

  it.each(kinds)('%s has a structural schema', (kind) => {
    const schema = root(kind);
    expect(schema.type).toBe('object');
    expect(structuralProblems(schema, kind)).toEqual([]);
  });

  it('the structural check catches what kube-apiserver would refuse', () => {
    expect(structuralProblems({ type: 'object', properties: { a: {} } }, 'x')).toEqual(['x.a: no type']);
    expect(
      structuralProblems(
        {
          type: 'object',
          properties: { a: { type: 'string' } },
          oneOf: [{ type: 'object', required: ['b'] }],
        },
        'x',
      ),
    ).toEqual(['x.<branch 0>: type inside oneOf/anyOf', 'x: branch requires unknown b']);
  });

  it('gives a status subresource exactly to the kinds whose controllers write status', () => {
    const withStatus = antreaCrds()
      .filter((c) => c.spec.versions[0]?.subresources?.status)
      .map((c) => c.spec.names.kind);
    expect(withStatus).toEqual([
      'ClusterNetworkPolicy',
      'NetworkPolicy',
      'ClusterGroup',
      'Group',
      'Traceflow',
      'SupportBundleCollection',
      'Egress',
      'ExternalIPPool',
      'PacketCapture',
      // Antrea declares the subresource but no status fields; no controller writes it.
      'TrafficControl',
    ]);
  });

  it('returns fresh objects, so callers cannot corrupt later output', () => {
    const a = crdFor('Tier');
    a.spec.names.kind = 'Changed';
    expect(crdFor('Tier').spec.names.kind).toBe('Tier');
  });
});

describe('policy schemas', () => {
  for (const kind of ['ClusterNetworkPolicy', 'NetworkPolicy'] as const) {
    it(`${kind}: priority 1-10000 required, actions Allow|Drop|Reject|Pass required per rule`, () => {
      const spec = at(root(kind), 'spec');
      expect(spec.required).toEqual(['priority']);
      expect(spec.properties?.['priority']).toEqual({
        type: 'number',
        format: 'float',
        minimum: 1,
        maximum: 10000,
      });
      for (const dir of ['ingress', 'egress']) {
        const r = at(spec, `${dir}.[]`);
        expect(r.required).toEqual(['action']);
        expect(r.properties?.['action']?.enum).toEqual(['Allow', 'Drop', 'Reject', 'Pass']);
        expect(at(r, 'ports.[].port')).toEqual({ 'x-kubernetes-int-or-string': true });
        expect(at(r, 'ports.[].protocol').enum).toEqual(['TCP', 'UDP', 'SCTP']);
      }
      expect(at(spec, 'ingress.[].protocols.[].igmp.igmpType').enum).toEqual([0x11]);
      expect(at(spec, 'egress.[].protocols.[].igmp.igmpType').enum).toEqual([0x12, 0x16, 0x22]);
      expect(propsOf(kind, 'spec.ingress.[]')).not.toContain('to');
      expect(propsOf(kind, 'spec.egress.[]')).not.toContain('from');
      expect(propsOf(kind, 'spec.ingress.[]')).not.toContain('toServices');
    });
  }

  it('ClusterNetworkPolicy accepts cluster-wide selectors; Antrea NetworkPolicy does not', () => {
    expect(propsOf('ClusterNetworkPolicy', 'spec.appliedTo.[]')).toEqual([
      'podSelector',
      'namespaceSelector',
      'group',
      'serviceAccount',
      'service',
      'nodeSelector',
    ]);
    expect(propsOf('NetworkPolicy', 'spec.appliedTo.[]')).toEqual([
      'externalEntitySelector',
      'podSelector',
      'group',
    ]);
    expect(propsOf('ClusterNetworkPolicy', 'spec.ingress.[].from.[]')).toContain('namespaces');
    expect(propsOf('NetworkPolicy', 'spec.ingress.[].from.[]')).not.toContain('namespaces');
    // fqdn only makes sense for egress; scope only for ingress.
    expect(propsOf('ClusterNetworkPolicy', 'spec.egress.[].to.[]')).toContain('fqdn');
    expect(propsOf('ClusterNetworkPolicy', 'spec.ingress.[].from.[]')).not.toContain('fqdn');
    expect(propsOf('ClusterNetworkPolicy', 'spec.ingress.[].from.[]')).toContain('scope');
    expect(propsOf('ClusterNetworkPolicy', 'spec.egress.[].to.[]')).not.toContain('scope');
    expect(at(root('ClusterNetworkPolicy'), 'spec.egress.[].toServices.[]').required).toEqual([
      'name',
      'namespace',
    ]);
    expect(at(root('NetworkPolicy'), 'spec.egress.[].toServices.[]').required).toEqual(['name']);
  });

  it('ipBlock has cidr and except, both checked as CIDRs', () => {
    const ipBlock = at(root('ClusterNetworkPolicy'), 'spec.egress.[].to.[].ipBlock');
    expect(ipBlock.properties).toEqual({
      cidr: { type: 'string', format: 'cidr' },
      except: { type: 'array', items: { type: 'string', format: 'cidr' } },
    });
  });
});

describe('other schemas', () => {
  it('Tier priority is a required integer in 0-255', () => {
    expect(at(root('Tier'), 'spec')).toEqual({
      type: 'object',
      properties: {
        priority: { type: 'integer', minimum: 0, maximum: 255 },
        description: { type: 'string' },
      },
      required: ['priority'],
    });
  });

  it('SupportBundleCollection defaults expirationMinutes to 60 and needs nodes or externalNodes', () => {
    const spec = at(root('SupportBundleCollection'), 'spec');
    expect(spec.properties?.['expirationMinutes']).toEqual({ type: 'integer', default: 60 });
    expect(spec.anyOf).toEqual([{ required: ['nodes'] }, { required: ['externalNodes'] }]);
    expect(spec.required).toEqual(['fileServer', 'authentication']);
  });

  it('Traceflow requires spec and bounds timeout to 1-300 s', () => {
    expect(root('Traceflow').required).toEqual(['spec']);
    expect(at(root('Traceflow'), 'spec.timeout')).toEqual({ type: 'integer', minimum: 1, maximum: 300 });
  });

  it('monitoring CRDs keep their fields at the top level', () => {
    expect(propsOf('AntreaAgentInfo', 'agentConditions.[]')).toContain('lastHeartbeatTime');
    expect(root('AntreaAgentInfo').properties).not.toHaveProperty('spec');
    expect(root('AntreaControllerInfo').properties).toHaveProperty('connectedAgentNum');
  });

  it('Group drops nodeSelector and label-value checks that ClusterGroup has', () => {
    expect(propsOf('ClusterGroup', 'spec')).toContain('nodeSelector');
    expect(propsOf('Group', 'spec')).not.toContain('nodeSelector');
    expect(
      at(root('ClusterGroup'), 'spec.podSelector.matchLabels').additionalProperties?.pattern,
    ).toBeDefined();
    expect(at(root('Group'), 'spec.podSelector.matchLabels')).toEqual({
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });
});
