import { createHash } from 'node:crypto';
import type { KubeObject } from '../k8s/types.js';
import { K8S_TAG_SCOPE_PREFIX } from '../labels.js';
import type { NsxTag } from '../nsx/types.js';

/** Kubernetes kinds reported to the NSX container inventory. */
export const INVENTORY_KINDS = ['Namespace', 'Pod', 'Service', 'Node', 'NetworkPolicy', 'Ingress'] as const;
export type InventoryKind = (typeof INVENTORY_KINDS)[number];

export type InventorySnapshot = Record<InventoryKind, readonly KubeObject[]>;

/** An NSX container inventory object (research notes §2.4). */
export type ContainerObject = Record<string, unknown> & { resource_type: string; external_id: string };

/** NSX limits: tag scope 128 chars, tag value 256, at most 20 tags per object (nsx-operator). */
export const MAX_TAGS = 20;
const MAX_SCOPE = 128;
const MAX_TAG = 256;

/**
 * Labels -> NSX tags: scope "dis:k8s:<key>", tag = value, sorted by key, at most 20. A scope longer
 * than NSX allows keeps its start and ends with a short hash of the full key, so two long keys
 * cannot collapse into one scope.
 */
export function labelsToTags(labels: Record<string, string> | undefined): NsxTag[] {
  return Object.keys(labels ?? {})
    .sort()
    .slice(0, MAX_TAGS)
    .map((key) => {
      let scope = `${K8S_TAG_SCOPE_PREFIX}${key}`;
      if (scope.length > MAX_SCOPE) {
        const h = createHash('sha1').update(key).digest('hex').slice(0, 8);
        scope = `${scope.slice(0, MAX_SCOPE - 9)}-${h}`;
      }
      return { scope, tag: String(labels?.[key] ?? '').slice(0, MAX_TAG) };
    });
}

type Obj = KubeObject & { metadata: NonNullable<KubeObject['metadata']> };

function uid(o: KubeObject): string {
  return o.metadata?.uid ?? '';
}

function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

const POD_STATUS: Record<string, string> = { Running: 'UP', Succeeded: 'DOWN', Failed: 'DOWN' };

/**
 * A cluster snapshot -> the NSX inventory objects, keyed "<resource_type>/<external_id>". Pure and
 * deterministic (fields in a fixed order), so two snapshots can be diffed by JSON text.
 * External ids are Kubernetes UIDs; the Namespace, Node and selecting Services of a Pod are
 * referenced by their UIDs, as NSX and nsx-operator do.
 */
export function buildInventory(
  snap: InventorySnapshot,
  cluster: { uuid: string; name: string },
): Map<string, ContainerObject> {
  const out = new Map<string, ContainerObject>();
  const put = (o: ContainerObject) => out.set(`${o.resource_type}/${o.external_id}`, o);
  const base = (type: string, o: Obj) => ({
    resource_type: type,
    external_id: uid(o),
    display_name: o.metadata.name ?? '',
    tags: labelsToTags(o.metadata.labels),
    container_cluster_id: cluster.uuid,
  });
  put({
    resource_type: 'ContainerCluster',
    external_id: cluster.uuid,
    display_name: cluster.name,
    cluster_type: 'Kubernetes',
    // The real adapter's enum string is not public (research notes §2.4); "Antrea" is what the UI shows.
    cni_type: 'Antrea',
  });
  const nsUid = new Map<string, string>();
  for (const ns of snap.Namespace as Obj[]) {
    nsUid.set(ns.metadata.name ?? '', uid(ns));
    put({ ...base('ContainerProject', ns) });
  }
  const nodeUid = new Map<string, string>();
  for (const n of snap.Node as Obj[]) {
    nodeUid.set(n.metadata.name ?? '', uid(n));
    const status = n.status as
      | { addresses?: { type: string; address: string }[]; conditions?: { type: string; status: string }[] }
      | undefined;
    const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    put({
      ...base('ContainerClusterNode', n),
      ip_addresses: (status?.addresses ?? [])
        .filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP')
        .map((a) => a.address),
      cni_agent_status: ready ? 'UP' : 'DOWN',
    });
  }
  const servicesByNs = new Map<string, Obj[]>();
  const serviceUidByName = new Map<string, string>();
  for (const s of snap.Service as Obj[]) {
    const ns = s.metadata.namespace ?? '';
    servicesByNs.set(ns, [...(servicesByNs.get(ns) ?? []), s]);
    serviceUidByName.set(`${ns}/${s.metadata.name}`, uid(s));
    const spec = s.spec as { type?: string; clusterIP?: string; clusterIPs?: string[] } | undefined;
    put({
      ...base('ContainerApplication', s),
      container_project_id: nsUid.get(ns) ?? '',
      status: 'UP',
      origin_properties: [
        { key: 'type', value: spec?.type ?? 'ClusterIP' },
        { key: 'ip', value: (spec?.clusterIPs ?? (spec?.clusterIP ? [spec.clusterIP] : [])).join(',') },
      ],
    });
  }
  for (const p of snap.Pod as Obj[]) {
    const ns = p.metadata.namespace ?? '';
    const spec = p.spec as { nodeName?: string } | undefined;
    const status = p.status as { phase?: string; podIPs?: { ip: string }[]; podIP?: string } | undefined;
    const ips = status?.podIPs?.map((i) => i.ip) ?? (status?.podIP ? [status.podIP] : []);
    put({
      ...base('ContainerApplicationInstance', p),
      container_project_id: nsUid.get(ns) ?? '',
      cluster_node_id: nodeUid.get(spec?.nodeName ?? '') ?? '',
      container_application_ids: (servicesByNs.get(ns) ?? [])
        .filter((s) =>
          selects((s.spec as { selector?: Record<string, string> } | undefined)?.selector, p.metadata.labels),
        )
        .map(uid)
        .sort(),
      status: POD_STATUS[status?.phase ?? ''] ?? 'UNKNOWN',
      origin_properties: [{ key: 'ip', value: ips.join(',') }],
    });
  }
  for (const np of snap.NetworkPolicy as Obj[]) {
    put({
      ...base('ContainerNetworkPolicy', np),
      container_project_id: nsUid.get(np.metadata.namespace ?? '') ?? '',
      policy_type: 'NETWORK_POLICY',
      // NSX wants YAML; JSON is valid YAML and keeps the adapter free of a YAML dependency.
      spec: JSON.stringify(np.spec ?? {}),
    });
  }
  for (const ing of snap.Ingress as Obj[]) {
    const ns = ing.metadata.namespace ?? '';
    const backends = new Set<string>();
    const spec = ing.spec as
      | {
          defaultBackend?: { service?: { name?: string } };
          rules?: { http?: { paths?: { backend?: { service?: { name?: string } } }[] } }[];
        }
      | undefined;
    const add = (name: string | undefined) => {
      const u = name ? serviceUidByName.get(`${ns}/${name}`) : undefined;
      if (u) backends.add(u);
    };
    add(spec?.defaultBackend?.service?.name);
    for (const r of spec?.rules ?? []) for (const p of r.http?.paths ?? []) add(p.backend?.service?.name);
    put({
      ...base('ContainerIngressPolicy', ing),
      container_project_id: nsUid.get(ns) ?? '',
      container_application_ids: [...backends].sort(),
      spec: JSON.stringify(ing.spec ?? {}),
    });
  }
  return out;
}

export interface InventoryDiff {
  creates: ContainerObject[];
  updates: ContainerObject[];
  deletes: { resource_type: string; external_id: string }[];
}

/** Order that keeps parents before children on create and children before parents on delete. */
const TYPE_ORDER = [
  'ContainerCluster',
  'ContainerClusterNode',
  'ContainerProject',
  'ContainerApplication',
  'ContainerApplicationInstance',
  'ContainerNetworkPolicy',
  'ContainerIngressPolicy',
];
const rank = (t: string) => TYPE_ORDER.indexOf(t);

/** Only the fields the adapter sets matter: NSX adds _last_sync_time and friends. */
function same(want: ContainerObject, have: Record<string, unknown>): boolean {
  return Object.keys(want).every((k) => JSON.stringify(want[k]) === JSON.stringify(have[k]));
}

export function diffInventory(
  desired: ReadonlyMap<string, ContainerObject>,
  reported: ReadonlyMap<string, Record<string, unknown>>,
): InventoryDiff {
  const creates: ContainerObject[] = [];
  const updates: ContainerObject[] = [];
  const deletes: { resource_type: string; external_id: string }[] = [];
  for (const [k, want] of desired) {
    const have = reported.get(k);
    if (!have) creates.push(want);
    else if (!same(want, have)) updates.push(want);
  }
  for (const [k, have] of reported) {
    if (!desired.has(k))
      deletes.push({
        resource_type: String(have['resource_type']),
        external_id: String(have['external_id']),
      });
  }
  creates.sort((a, b) => rank(a.resource_type) - rank(b.resource_type));
  deletes.sort((a, b) => rank(b.resource_type) - rank(a.resource_type));
  return { creates, updates, deletes };
}
