import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CRD_KINDS,
  type CrdKind,
  type CustomResourceDefinition,
  crdResourcePath,
  DEFAULT_BUNDLE_EXPIRATION_MINUTES,
} from '@antrea-ts/apis';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as ex from './examples.js';
import { type RestClient, type RestResponse, restClient } from './rest.js';

// Installs build/crds into a real kube-apiserver and checks that it accepts, defaults, prunes and
// refuses objects the way it does with Antrea's own CRDs.

const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const CRD_API = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** What the helpers need of an object; every crd.antrea.io interface satisfies it. */
interface AnyObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON read back from the apiserver
type Json = any;

let kube: KubeCluster;
let rest: RestClient;

function pathOf(obj: AnyObject, subresource = ''): string {
  const kind = obj.kind as CrdKind;
  const { namespace, name } = obj.metadata;
  return (
    crdResourcePath(kind, { ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) }) + subresource
  );
}

function collectionOf(obj: AnyObject): string {
  const ns = obj.metadata.namespace;
  return crdResourcePath(obj.kind as CrdKind, ns ? { namespace: ns } : {});
}

async function create(obj: AnyObject): Promise<RestResponse> {
  return rest.call('POST', collectionOf(obj), obj);
}

async function mustCreate(obj: AnyObject): Promise<Json> {
  const res = await create(obj);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function read(obj: AnyObject): Promise<Json> {
  const res = await rest.call('GET', pathOf(obj));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The object's content as written by the user, without metadata. */
function content(obj: AnyObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = obj as AnyObject & Record<string, unknown>;
  return fields;
}

function clone<T>(obj: T): T {
  return structuredClone(obj);
}

async function waitEstablished(name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await rest.call('GET', `${CRD_API}/${name}`);
    const conditions: Array<{ type: string; status: string; message?: string }> =
      res.body?.status?.conditions ?? [];
    const established = conditions.find((c) => c.type === 'Established');
    if (established?.status === 'True') return;
    const names = conditions.find((c) => c.type === 'NamesAccepted');
    if (names?.status === 'False') throw new Error(`${name}: names not accepted: ${names.message}`);
    if (Date.now() > deadline) throw new Error(`${name} not Established: ${JSON.stringify(conditions)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function crdFiles(): CustomResourceDefinition[] {
  return readdirSync(crdDir)
    .filter((n) => n.startsWith('crd-') && n.endsWith('.yaml'))
    .sort()
    .map((n) => parse(readFileSync(`${crdDir}${n}`, 'utf8')) as CustomResourceDefinition);
}

beforeAll(async () => {
  kube = await startKube();
  rest = restClient(kube.kubeConfig);
  for (const crd of crdFiles()) {
    const res = await rest.call('POST', CRD_API, crd);
    expect(res.status, `${crd.metadata.name}: ${JSON.stringify(res.body)}`).toBe(201);
  }
  for (const crd of crdFiles()) await waitEstablished(crd.metadata.name);
  const ns = await rest.call('POST', '/api/v1/namespaces', { metadata: { name: ex.NAMESPACE } });
  expect(ns.status).toBe(201);
});

afterAll(async () => {
  await kube?.stop();
});

describe('CRD installation', () => {
  it('installs one CRD per CRD_KINDS entry, schemas stored unchanged', async () => {
    const files = crdFiles();
    expect(files.map((c) => c.spec.names.kind).sort()).toEqual(Object.keys(CRD_KINDS).sort());
    for (const crd of files) {
      const stored = (await rest.call('GET', `${CRD_API}/${crd.metadata.name}`)).body;
      expect(stored.spec.versions[0].schema).toEqual(crd.spec.versions[0]?.schema);
      expect(stored.spec.names).toEqual(expect.objectContaining(crd.spec.names));
    }
  });

  it('serves every kind at the group/version, scope and short names of CRD_KINDS', async () => {
    for (const version of ['v1beta1', 'v1alpha1', 'v1alpha2']) {
      const res = await rest.call('GET', `/apis/crd.antrea.io/${version}`);
      expect(res.status).toBe(200);
      const served = new Map<string, { namespaced: boolean; shortNames?: string[]; kind: string }>(
        res.body.resources.map((r: { name: string }) => [r.name, r]),
      );
      const expected = Object.values(CRD_KINDS).filter((k) => k.version === version);
      expect(expected.length).toBeGreaterThan(0);
      for (const info of expected) {
        const r = served.get(info.plural);
        expect(r, info.plural).toBeDefined();
        expect(r?.kind).toBe(info.kind);
        expect(r?.namespaced).toBe(info.namespaced);
        expect(r?.shortNames).toEqual(info.shortNames);
      }
    }
  });

  it('lets kubectl apply the documentation YAML and find it by short name', async () => {
    const yaml = `apiVersion: crd.antrea.io/v1beta1
kind: ClusterNetworkPolicy
metadata:
  name: acnp-from-kubectl
spec:
  priority: 5
  tier: securityops
  appliedTo:
    - podSelector:
        matchLabels:
          role: db
  ingress:
    - action: Allow
      from:
        - podSelector:
            matchLabels:
              role: frontend
      ports:
        - protocol: TCP
          port: 8080
          endPort: 9000
      name: AllowFromFrontend
`;
    await kube.kubectl(['apply', '-f', '-'], { input: yaml });
    expect(await kube.kubectl(['get', 'acnp', '-o', 'name'])).toContain(
      'clusternetworkpolicy.crd.antrea.io/acnp-from-kubectl',
    );
    const table = await kube.kubectl(['get', 'acnp', 'acnp-from-kubectl']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+TIER\s+PRIORITY\s+DESIRED NODES\s+CURRENT NODES\s+AGE/);
    expect(table.split('\n')[1]).toMatch(/^acnp-from-kubectl\s+securityops\s+5\s+/);
  });
});

describe('valid objects', () => {
  const valid: Array<[string, AnyObject]> = [
    ['Tier', ex.tier],
    ['ClusterNetworkPolicy (documentation)', ex.acnpStandAlone],
    ['ClusterNetworkPolicy (every field)', ex.acnpAllFields],
    ['NetworkPolicy', ex.annp],
    ...ex.clusterGroups.map((g): [string, AnyObject] => [`ClusterGroup ${g.metadata.name}`, g]),
    ['Group', ex.group],
    ['ExternalEntity', ex.externalEntity],
    ['Traceflow', ex.traceflow],
    ['Traceflow (live traffic)', ex.liveTraceflow],
    ['AntreaAgentInfo', ex.agentInfo],
    ['AntreaControllerInfo', ex.controllerInfo],
  ];

  it.each(valid)('%s is stored exactly as written', async (_name, obj) => {
    await mustCreate(obj);
    const stored = await read(obj);
    expect(stored.apiVersion).toBe(obj.apiVersion);
    expect(content(stored)).toEqual(content(obj));
  });

  it('SupportBundleCollection gets expirationMinutes defaulted to 60, and keeps an explicit value', async () => {
    await mustCreate(ex.supportBundleCollection);
    const stored = await read(ex.supportBundleCollection);
    expect(stored.spec).toEqual({
      ...ex.supportBundleCollection.spec,
      expirationMinutes: DEFAULT_BUNDLE_EXPIRATION_MINUTES,
    });
    const explicit = clone(ex.supportBundleCollection);
    explicit.metadata.name = 'support-bundle-10m';
    explicit.spec.expirationMinutes = 10;
    expect((await mustCreate(explicit)).spec.expirationMinutes).toBe(10);
  });

  it('Traceflow timeout is left unset (the controller applies its 20 s default, as in Antrea)', async () => {
    const stored = await read(ex.traceflow);
    expect(stored.spec).not.toHaveProperty('timeout');
  });

  it('prunes fields a position does not accept, as Antrea does', async () => {
    const annp: Json = clone(ex.annp);
    annp.metadata.name = 'annp-pruned';
    // Antrea NetworkPolicy appliedTo has no namespaceSelector; ClusterGroup-only nodeSelector in a Group.
    annp.spec.appliedTo = [{ podSelector: {}, namespaceSelector: { matchLabels: { a: 'b' } } }];
    annp.spec.unknownField = 1;
    const stored = await mustCreate(annp);
    expect(stored.spec).toEqual(expect.objectContaining({ appliedTo: [{ podSelector: {} }] }));
    expect(stored.spec).not.toHaveProperty('unknownField');

    const group: Json = clone(ex.group);
    group.metadata.name = 'grp-pruned';
    group.spec.nodeSelector = { matchLabels: { a: 'b' } };
    expect((await mustCreate(group)).spec).not.toHaveProperty('nodeSelector');
  });

  it('keeps status out of create and update, and writes it through /status', async () => {
    const acnp: Json = clone(ex.acnpStandAlone);
    acnp.metadata.name = 'acnp-status';
    acnp.status = {
      phase: 'Realized',
      observedGeneration: 1,
      currentNodesRealized: 1,
      desiredNodesRealized: 1,
    };
    const created = await mustCreate(acnp);
    expect(created).not.toHaveProperty('status');

    const status = {
      phase: 'Realized',
      observedGeneration: 1,
      currentNodesRealized: 2,
      desiredNodesRealized: 2,
      conditions: [{ type: 'Realizable', status: 'True', lastTransitionTime: '2026-11-21T09:00:00Z' }],
    };
    const res = await rest.call('PUT', pathOf(acnp, '/status'), { ...created, status });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await read(acnp)).status).toEqual(status);

    // Tier has no status subresource.
    expect((await rest.call('GET', pathOf(ex.tier, '/status'))).status).toBe(404);
  });

  it('prints the printer columns Antrea declares', async () => {
    const columns = async (obj: AnyObject) => {
      const res = await rest.call('GET', collectionOf(obj), undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      });
      expect(res.status).toBe(200);
      return res.body.columnDefinitions.map(
        (c: { name: string; priority: number }) => `${c.name}/${c.priority}`,
      );
    };
    expect(await columns(ex.acnpStandAlone)).toEqual([
      'Name/0',
      'Tier/0',
      'Priority/0',
      'Desired Nodes/0',
      'Current Nodes/0',
      'Age/0',
    ]);
    expect(await columns(ex.annp)).toEqual([
      'Name/0',
      'Tier/0',
      'Priority/0',
      'Desired Nodes/0',
      'Current Nodes/0',
      'Age/0',
    ]);
    expect(await columns(ex.tier)).toEqual(['Name/0', 'Priority/0', 'Age/0']);
    expect(await columns(ex.traceflow)).toEqual([
      'Name/0',
      'Phase/0',
      'Source-Pod/10',
      'Destination-Pod/10',
      'Destination-IP/10',
      'Live-Traffic/10',
      'Dropped-Only/10',
      'Timeout/10',
      'Age/0',
    ]);
    expect(await columns(ex.agentInfo)).toEqual([
      'Name/0',
      'Healthy/0',
      'Last Heartbeat/0',
      'Version/1',
      'Node/1',
      'Num Pods/2',
      'Subnets/2',
    ]);
    const agents = await rest.call('GET', collectionOf(ex.agentInfo), undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(agents.body.rows[0].cells.slice(0, 2)).toEqual(['node-1', 'True']);
  });
});

// Each case breaks one field of a valid object; the apiserver must answer 422 Invalid and name
// that field, so users see the same errors as with Antrea's CRDs.
interface InvalidCase {
  name: string;
  base: AnyObject;
  mutate: (o: Json) => void;
  field: string;
  /**
   * oneOf/anyOf failures are reported by kube-apiserver with no field path (`<nil>`) and the path
   * quoted in the message instead: `"spec" must validate at least one schema (anyOf)`.
   */
  combinator?: 'oneOf' | 'anyOf';
}

const invalid: InvalidCase[] = [
  {
    name: 'ACNP rule action not in Allow|Drop|Reject|Pass',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.ingress[0].action = 'Deny';
    },
    field: 'spec.ingress[0].action',
  },
  {
    name: 'ACNP rule without action',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      delete o.spec.egress[0].action;
    },
    field: 'spec.egress[0].action',
  },
  {
    name: 'ACNP without priority',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      delete o.spec.priority;
    },
    field: 'spec.priority',
  },
  {
    name: 'ACNP priority below 1',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.priority = 0.5;
    },
    field: 'spec.priority',
  },
  {
    name: 'ACNP priority above 10000',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.priority = 10001;
    },
    field: 'spec.priority',
  },
  {
    name: 'ACNP ipBlock cidr not a CIDR',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.egress[0].to[0].ipBlock.cidr = '10.0.10.0/33';
    },
    field: 'spec.egress[0].to[0].ipBlock.cidr',
  },
  {
    name: 'ACNP ipBlock except not a CIDR',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].from[2].ipBlock.except = ['not-a-cidr'];
    },
    field: 'spec.ingress[0].from[2].ipBlock.except[0]',
  },
  {
    name: 'ACNP port neither integer nor string',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.ingress[0].ports[0].port = true;
    },
    field: 'spec.ingress[0].ports[0].port',
  },
  {
    name: 'ACNP endPort not an integer',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.ingress[0].ports[0].endPort = '9000';
    },
    field: 'spec.ingress[0].ports[0].endPort',
  },
  {
    name: 'ACNP port protocol ICMP (belongs in protocols)',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.ingress[0].ports[0].protocol = 'ICMP';
    },
    field: 'spec.ingress[0].ports[0].protocol',
  },
  {
    name: 'ACNP protocols entry with both icmp and igmp',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].protocols[0].igmp = { igmpType: 0x11 };
    },
    field: 'spec.ingress[0].protocols[0]',
    combinator: 'oneOf',
  },
  {
    name: 'ACNP IGMP report in an ingress rule',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].protocols[1].igmp.igmpType = 0x16;
    },
    field: 'spec.ingress[0].protocols[1].igmp.igmpType',
  },
  {
    name: 'ACNP ICMP type above 255',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].protocols[0].icmp.icmpType = 256;
    },
    field: 'spec.ingress[0].protocols[0].icmp.icmpType',
  },
  {
    name: 'ACNP namespaces with both match and sameLabels',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].from[0].namespaces = { match: 'Self', sameLabels: ['tenant'] };
    },
    field: 'spec.ingress[0].from[0].namespaces',
  },
  {
    name: 'ACNP namespaces match other than Self',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].from[0].namespaces = { match: 'Other' };
    },
    field: 'spec.ingress[0].from[0].namespaces.match',
  },
  {
    name: 'ACNP peer scope not Cluster|ClusterSet',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].from[6].scope = 'Global';
    },
    field: 'spec.ingress[0].from[6].scope',
  },
  {
    name: 'ACNP toServices without namespace',
    base: ex.acnpAllFields,
    mutate: (o) => {
      delete o.spec.egress[1].toServices[0].namespace;
    },
    field: 'spec.egress[1].toServices[0].namespace',
  },
  {
    name: 'ACNP serviceAccount without name',
    base: ex.acnpAllFields,
    mutate: (o) => {
      delete o.spec.ingress[0].from[4].serviceAccount.name;
    },
    field: 'spec.ingress[0].from[4].serviceAccount.name',
  },
  {
    name: 'ACNP logLabel longer than 63 characters',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].logLabel = 'a'.repeat(64);
    },
    field: 'spec.ingress[0].logLabel',
  },
  {
    name: 'ACNP matchLabels value with a space',
    base: ex.acnpStandAlone,
    mutate: (o) => {
      o.spec.appliedTo[0].podSelector.matchLabels.role = 'data base';
    },
    field: 'spec.appliedTo[0].podSelector.matchLabels.role',
  },
  {
    name: 'ACNP selector operator not a label selector operator',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].appliedTo[0].podSelector.matchExpressions[0].operator = 'Equals';
    },
    field: 'spec.ingress[0].appliedTo[0].podSelector.matchExpressions[0].operator',
  },
  {
    name: 'ACNP HTTP method not an HTTP method',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[1].l7Protocols[0].http.method = 'FETCH';
    },
    field: 'spec.ingress[1].l7Protocols[0].http.method',
  },
  {
    name: 'ACNP IGMP groupAddress not an IP',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.egress[0].protocols[0].igmp.groupAddress = '224.0.0';
    },
    field: 'spec.egress[0].protocols[0].igmp.groupAddress',
  },
  {
    name: 'Antrea NetworkPolicy rule action not in the enum',
    base: ex.annp,
    mutate: (o) => {
      o.spec.egress[0].action = 'allow';
    },
    field: 'spec.egress[0].action',
  },
  {
    name: 'Antrea NetworkPolicy toServices without name',
    base: ex.annp,
    mutate: (o) => {
      delete o.spec.egress[1].toServices[0].name;
    },
    field: 'spec.egress[1].toServices[0].name',
  },
  {
    name: 'Tier priority above 255',
    base: ex.tier,
    mutate: (o) => {
      o.spec.priority = 256;
    },
    field: 'spec.priority',
  },
  {
    name: 'Tier without priority',
    base: ex.tier,
    mutate: (o) => {
      delete o.spec.priority;
    },
    field: 'spec.priority',
  },
  {
    name: 'Tier priority not an integer',
    base: ex.tier,
    mutate: (o) => {
      o.spec.priority = 'high';
    },
    field: 'spec.priority',
  },
  {
    name: 'ClusterGroup ipBlocks cidr not a CIDR',
    base: ex.clusterGroups[1] as AnyObject,
    mutate: (o) => {
      o.spec.ipBlocks[0].cidr = '10.0.10.0';
    },
    field: 'spec.ipBlocks[0].cidr',
  },
  {
    name: 'ClusterGroup childGroups not strings',
    base: ex.clusterGroups[3] as AnyObject,
    mutate: (o) => {
      o.spec.childGroups = [{ name: 'x' }];
    },
    field: 'spec.childGroups[0]',
  },
  {
    name: 'ExternalEntity endpoint ip not an IP',
    base: ex.externalEntity,
    mutate: (o) => {
      o.spec.endpoints[0].ip = '10.10.0.256';
    },
    field: 'spec.endpoints[0].ip',
  },
  {
    name: 'ExternalEntity port protocol not TCP|UDP|SCTP',
    base: ex.externalEntity,
    mutate: (o) => {
      o.spec.ports[0].protocol = 'tcp';
    },
    field: 'spec.ports[0].protocol',
  },
  {
    name: 'Traceflow without spec',
    base: ex.traceflow,
    mutate: (o) => {
      delete o.spec;
    },
    field: 'spec',
  },
  {
    name: 'Traceflow timeout above 300 s',
    base: ex.liveTraceflow,
    mutate: (o) => {
      o.spec.timeout = 301;
    },
    field: 'spec.timeout',
  },
  {
    name: 'Traceflow TCP destination port 0',
    base: ex.traceflow,
    mutate: (o) => {
      o.spec.packet.transportHeader.tcp.dstPort = 0;
    },
    field: 'spec.packet.transportHeader.tcp.dstPort',
  },
  {
    name: 'Traceflow IP flags above 7',
    base: ex.traceflow,
    mutate: (o) => {
      o.spec.packet.ipHeader.flags = 8;
    },
    field: 'spec.packet.ipHeader.flags',
  },
  {
    name: 'Traceflow destination ip not an IP',
    base: ex.traceflow,
    mutate: (o) => {
      o.spec.destination = { ip: 'example.com' };
    },
    field: 'spec.destination.ip',
  },
  {
    name: 'SupportBundleCollection without fileServer',
    base: ex.supportBundleCollection,
    mutate: (o) => {
      delete o.spec.fileServer;
    },
    field: 'spec.fileServer',
  },
  {
    name: 'SupportBundleCollection with neither nodes nor externalNodes',
    base: ex.supportBundleCollection,
    mutate: (o) => {
      delete o.spec.nodes;
    },
    field: 'spec',
    combinator: 'anyOf',
  },
  {
    name: 'SupportBundleCollection externalNodes without namespace',
    base: ex.supportBundleCollection,
    mutate: (o) => {
      o.spec.externalNodes = { nodeNames: ['vm1'] };
    },
    field: 'spec.externalNodes.namespace',
  },
  {
    name: 'SupportBundleCollection authType not in the enum',
    base: ex.supportBundleCollection,
    mutate: (o) => {
      o.spec.authentication.authType = 'Password';
    },
    field: 'spec.authentication.authType',
  },
  {
    name: 'SupportBundleCollection sinceTime not a duration',
    base: ex.supportBundleCollection,
    mutate: (o) => {
      o.spec.sinceTime = 'two hours';
    },
    field: 'spec.sinceTime',
  },
  {
    name: 'AntreaAgentInfo condition type not in the enum',
    base: ex.agentInfo,
    mutate: (o) => {
      o.agentConditions[0].type = 'Ready';
    },
    field: 'agentConditions[0].type',
  },
  {
    name: 'AntreaAgentInfo condition without lastHeartbeatTime',
    base: ex.agentInfo,
    mutate: (o) => {
      delete o.agentConditions[0].lastHeartbeatTime;
    },
    field: 'agentConditions[0].lastHeartbeatTime',
  },
  {
    name: 'AntreaAgentInfo three transport interface IPs',
    base: ex.agentInfo,
    mutate: (o) => {
      o.networkInfo.transportInterfaceIPs = ['10.0.0.1/24', 'fd00::1/64', '10.0.0.2/24'];
    },
    field: 'networkInfo.transportInterfaceIPs',
  },
  {
    name: 'AntreaControllerInfo apiPort 0',
    base: ex.controllerInfo,
    mutate: (o) => {
      o.apiPort = 0;
    },
    field: 'apiPort',
  },
];

describe('invalid objects', () => {
  it.each(invalid.map((c) => [c.name, c] as const))('refuses: %s', async (_name, c) => {
    const obj: Json = clone(c.base);
    obj.metadata = { ...obj.metadata, name: `invalid-${invalid.indexOf(c)}` };
    c.mutate(obj);
    const res = await create(obj);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    if (c.combinator) {
      expect(res.body.message).toContain(`"${c.field}" must validate`);
      expect(res.body.message).toContain(`(${c.combinator})`);
      return;
    }
    expect(res.body.message).toContain(`${c.field}:`);
    const fields = (res.body.details?.causes ?? []).map((cause: { field: string }) => cause.field);
    expect(fields).toContain(c.field);
  });
});
