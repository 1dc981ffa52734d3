import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CRD_KINDS,
  type CrdKind,
  type CustomResourceDefinition,
  crdResourcePath,
  DEFAULT_BUNDLE_EXPIRATION_MINUTES,
  POLICY_API_KINDS,
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
  it('installs one CRD per CRD_KINDS and POLICY_API_KINDS entry, schemas stored unchanged', async () => {
    const files = crdFiles();
    // build/crds also holds the two policy.networking.k8s.io kinds (AdminNetworkPolicy, BANP).
    expect(files.map((c) => c.spec.names.kind).sort()).toEqual(
      [...Object.keys(CRD_KINDS), ...Object.keys(POLICY_API_KINDS)].sort(),
    );
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
    ['ExternalIPPool', ex.externalIPPool],
    ['Egress', ex.egress],
    ['TrafficControl (mirror over VXLAN)', ex.trafficControlMirror],
    ['TrafficControl (redirect through OVS internal ports)', ex.trafficControlRedirect],
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
    // Cluster-wide and namespaced Antrea policies print the same columns.
    const policyColumns = ['Name/0', 'Tier/0', 'Priority/0', 'Desired Nodes/0', 'Current Nodes/0', 'Age/0'];
    expect(await columns(ex.acnpStandAlone)).toEqual(policyColumns);
    expect(await columns(ex.annp)).toEqual(policyColumns);
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
    expect(await columns(ex.egress)).toEqual(['Name/0', 'EgressIP/0', 'Age/0', 'Node/0']);
    expect(await columns(ex.externalIPPool)).toEqual(['Name/0', 'Total/0', 'Used/0', 'Age/0']);
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

/** The object holding `field` (a path such as `spec.ingress[0].action`) in obj, and its key there. */
function locate(obj: Json, field: string): [Json, string] {
  const keys = field.match(/[^.[\]]+/g) ?? [];
  const key = keys.pop();
  const holder = keys.reduce((o: Json, k) => o?.[k], obj);
  if (key === undefined || typeof holder !== 'object' || holder === null) {
    throw new Error(`the example has no ${field}`);
  }
  return [holder, key];
}

/** A mutation that changes what holds `field`, the change given the holder and its key there. */
function atField(field: string, change: (holder: Json, key: string) => void): (o: Json) => void {
  return (o) => change(...locate(o, field));
}

/** A case that gives `field` a value the schema refuses. */
const setting = (name: string, base: AnyObject, field: string, value: unknown): InvalidCase => ({
  name,
  base,
  field,
  mutate: atField(field, (holder, key) => {
    holder[key] = value;
  }),
});

/** A case that leaves out a required `field`. */
const removing = (name: string, base: AnyObject, field: string): InvalidCase => ({
  name,
  base,
  field,
  mutate: atField(field, (holder, key) => {
    delete holder[key];
  }),
});

const invalid: InvalidCase[] = [
  setting(
    'ACNP rule action not in Allow|Drop|Reject|Pass',
    ex.acnpStandAlone,
    'spec.ingress[0].action',
    'Deny',
  ),
  removing('ACNP rule without action', ex.acnpStandAlone, 'spec.egress[0].action'),
  removing('ACNP without priority', ex.acnpStandAlone, 'spec.priority'),
  setting('ACNP priority below 1', ex.acnpStandAlone, 'spec.priority', 0.5),
  setting('ACNP priority above 10000', ex.acnpStandAlone, 'spec.priority', 10001),
  setting(
    'ACNP ipBlock cidr not a CIDR',
    ex.acnpStandAlone,
    'spec.egress[0].to[0].ipBlock.cidr',
    '10.0.10.0/33',
  ),
  {
    name: 'ACNP ipBlock except not a CIDR',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].from[2].ipBlock.except = ['not-a-cidr'];
    },
    field: 'spec.ingress[0].from[2].ipBlock.except[0]',
  },
  setting('ACNP port neither integer nor string', ex.acnpStandAlone, 'spec.ingress[0].ports[0].port', true),
  setting('ACNP endPort not an integer', ex.acnpStandAlone, 'spec.ingress[0].ports[0].endPort', '9000'),
  setting(
    'ACNP port protocol ICMP (belongs in protocols)',
    ex.acnpStandAlone,
    'spec.ingress[0].ports[0].protocol',
    'ICMP',
  ),
  {
    name: 'ACNP protocols entry with both icmp and igmp',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].protocols[0].igmp = { igmpType: 0x11 };
    },
    field: 'spec.ingress[0].protocols[0]',
    combinator: 'oneOf',
  },
  setting(
    'ACNP IGMP report in an ingress rule',
    ex.acnpAllFields,
    'spec.ingress[0].protocols[1].igmp.igmpType',
    0x16,
  ),
  setting('ACNP ICMP type above 255', ex.acnpAllFields, 'spec.ingress[0].protocols[0].icmp.icmpType', 256),
  setting(
    'ACNP namespaces with both match and sameLabels',
    ex.acnpAllFields,
    'spec.ingress[0].from[0].namespaces',
    { match: 'Self', sameLabels: ['tenant'] },
  ),
  {
    name: 'ACNP namespaces match other than Self',
    base: ex.acnpAllFields,
    mutate: (o) => {
      o.spec.ingress[0].from[0].namespaces = { match: 'Other' };
    },
    field: 'spec.ingress[0].from[0].namespaces.match',
  },
  setting(
    'ACNP peer scope not Cluster|ClusterSet',
    ex.acnpAllFields,
    'spec.ingress[0].from[6].scope',
    'Global',
  ),
  removing('ACNP toServices without namespace', ex.acnpAllFields, 'spec.egress[1].toServices[0].namespace'),
  removing(
    'ACNP serviceAccount without name',
    ex.acnpAllFields,
    'spec.ingress[0].from[4].serviceAccount.name',
  ),
  setting(
    'ACNP logLabel longer than 63 characters',
    ex.acnpAllFields,
    'spec.ingress[0].logLabel',
    'a'.repeat(64),
  ),
  setting(
    'ACNP matchLabels value with a space',
    ex.acnpStandAlone,
    'spec.appliedTo[0].podSelector.matchLabels.role',
    'data base',
  ),
  setting(
    'ACNP selector operator not a label selector operator',
    ex.acnpAllFields,
    'spec.ingress[0].appliedTo[0].podSelector.matchExpressions[0].operator',
    'Equals',
  ),
  setting(
    'ACNP HTTP method not an HTTP method',
    ex.acnpAllFields,
    'spec.ingress[1].l7Protocols[0].http.method',
    'FETCH',
  ),
  setting(
    'ACNP IGMP groupAddress not an IP',
    ex.acnpAllFields,
    'spec.egress[0].protocols[0].igmp.groupAddress',
    '224.0.0',
  ),
  setting('Antrea NetworkPolicy rule action not in the enum', ex.annp, 'spec.egress[0].action', 'allow'),
  removing('Antrea NetworkPolicy toServices without name', ex.annp, 'spec.egress[1].toServices[0].name'),
  setting('Tier priority above 255', ex.tier, 'spec.priority', 256),
  removing('Tier without priority', ex.tier, 'spec.priority'),
  setting('Tier priority not an integer', ex.tier, 'spec.priority', 'high'),
  setting(
    'ClusterGroup ipBlocks cidr not a CIDR',
    ex.clusterGroups[1] as AnyObject,
    'spec.ipBlocks[0].cidr',
    '10.0.10.0',
  ),
  {
    name: 'ClusterGroup childGroups not strings',
    base: ex.clusterGroups[3] as AnyObject,
    mutate: (o) => {
      o.spec.childGroups = [{ name: 'x' }];
    },
    field: 'spec.childGroups[0]',
  },
  setting('ExternalEntity endpoint ip not an IP', ex.externalEntity, 'spec.endpoints[0].ip', '10.10.0.256'),
  setting(
    'ExternalEntity port protocol not TCP|UDP|SCTP',
    ex.externalEntity,
    'spec.ports[0].protocol',
    'tcp',
  ),
  removing('Traceflow without spec', ex.traceflow, 'spec'),
  setting('Traceflow timeout above 300 s', ex.liveTraceflow, 'spec.timeout', 301),
  setting('Traceflow TCP destination port 0', ex.traceflow, 'spec.packet.transportHeader.tcp.dstPort', 0),
  setting('Traceflow IP flags above 7', ex.traceflow, 'spec.packet.ipHeader.flags', 8),
  {
    name: 'Traceflow destination ip not an IP',
    base: ex.traceflow,
    mutate: (o) => {
      o.spec.destination = { ip: 'example.com' };
    },
    field: 'spec.destination.ip',
  },
  removing('SupportBundleCollection without fileServer', ex.supportBundleCollection, 'spec.fileServer'),
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
  setting(
    'SupportBundleCollection authType not in the enum',
    ex.supportBundleCollection,
    'spec.authentication.authType',
    'Password',
  ),
  setting(
    'SupportBundleCollection sinceTime not a duration',
    ex.supportBundleCollection,
    'spec.sinceTime',
    'two hours',
  ),
  setting('AntreaAgentInfo condition type not in the enum', ex.agentInfo, 'agentConditions[0].type', 'Ready'),
  removing(
    'AntreaAgentInfo condition without lastHeartbeatTime',
    ex.agentInfo,
    'agentConditions[0].lastHeartbeatTime',
  ),
  setting(
    'AntreaAgentInfo three transport interface IPs',
    ex.agentInfo,
    'networkInfo.transportInterfaceIPs',
    ['10.0.0.1/24', 'fd00::1/64', '10.0.0.2/24'],
  ),
  setting('AntreaControllerInfo apiPort 0', ex.controllerInfo, 'apiPort', 0),
  removing('Egress without appliedTo', ex.egress, 'spec.appliedTo'),
  {
    name: 'Egress with neither egressIP nor externalIPPool',
    base: ex.egress,
    mutate: (o) => {
      delete o.spec.egressIP;
      delete o.spec.externalIPPool;
    },
    field: 'spec',
    combinator: 'oneOf',
  },
  {
    name: 'Egress with both the single and the list form',
    base: ex.egress,
    mutate: (o) => {
      o.spec.egressIPs = ['10.10.0.9'];
    },
    field: 'spec',
    combinator: 'oneOf',
  },
  {
    name: 'Egress egressIP not an IP',
    base: ex.egress,
    mutate: (o) => {
      o.spec.egressIP = '10.10.0';
    },
    field: 'spec.egressIP',
    combinator: 'oneOf',
  },
  removing('ExternalIPPool without nodeSelector', ex.externalIPPool, 'spec.nodeSelector'),
  setting('ExternalIPPool range cidr not a CIDR', ex.externalIPPool, 'spec.ipRanges[1].cidr', '10.10.1.0/33'),
  {
    name: 'ExternalIPPool range with start and no end',
    base: ex.externalIPPool,
    mutate: (o) => {
      o.spec.ipRanges = [{ start: '10.10.0.2' }];
    },
    field: 'spec.ipRanges[0]',
    combinator: 'oneOf',
  },
  setting('TrafficControl direction not in the enum', ex.trafficControlMirror, 'spec.direction', 'Out'),
  removing('TrafficControl without targetPort', ex.trafficControlMirror, 'spec.targetPort'),
  {
    name: 'TrafficControl targetPort of two kinds',
    base: ex.trafficControlMirror,
    mutate: (o) => {
      o.spec.targetPort.device = { name: 'eth1' };
    },
    field: 'spec.targetPort',
    combinator: 'oneOf',
  },
  {
    name: 'TrafficControl ERSPAN as returnPort',
    base: ex.trafficControlRedirect,
    mutate: (o) => {
      o.spec.returnPort = { erspan: { remoteIP: '10.0.10.2', version: 1 } };
    },
    field: 'spec.returnPort',
    combinator: 'oneOf',
  },
  setting(
    'TrafficControl VNI above 24 bits',
    ex.trafficControlMirror,
    'spec.targetPort.vxlan.vni',
    16_777_216,
  ),
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
