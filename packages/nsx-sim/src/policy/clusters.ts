import type { SimContext } from '../context.js';
import { notFound } from '../errors.js';
import type { NsxObject, PolicyObject } from '../state/types.js';
import { expressionReferences } from './group-expression.js';
import { CCP_COLLECTION, ccpPath, ENFORCEMENT_POINT_PATH } from './kinds.js';
import { sortBySequence } from './policy-tree.js';

/** Finds a registered cluster by ClusterControlPlane id (cluster name) or by node_id (cluster UUID). */
export function findCluster(ctx: SimContext, idOrNodeId: string): PolicyObject | undefined {
  const byId = ctx.tree.get(ccpPath(idOrNodeId));
  if (byId) return byId;
  return ctx.tree.children(ENFORCEMENT_POINT_PATH, CCP_COLLECTION).find((c) => c['node_id'] === idOrNodeId);
}

export function requireCluster(ctx: SimContext, idOrNodeId: string): PolicyObject {
  const c = findCluster(ctx, idOrNodeId);
  if (!c) throw notFound(`ClusterControlPlane/${idOrNodeId}`);
  return c;
}

export function reportInterval(ctx: SimContext, ccp: PolicyObject): number {
  const cfg = ctx.tree.get(`${ccp.path}/heartbeat-config/default`);
  const v = cfg?.['report_interval'];
  return typeof v === 'number' ? v : 60;
}

type Health = 'up' | 'degraded' | 'down' | 'unknown';

function componentHealth(c: unknown): Health {
  const s = typeof c === 'object' && c !== null ? (c as NsxObject)['status'] : undefined;
  if (s === 'UP' || s === 'HEALTHY') return 'up';
  if (s === 'DOWN' || s === 'FAILED') return 'down';
  if (s === 'DEGRADED') return 'degraded';
  return 'unknown';
}

/**
 * AntreaClusterInfo as GET .../status returns it. Overall status: UNKNOWN without a heartbeat in the
 * last 3 report intervals; FAILED if controller, MP adapter or CCP adapter is down; DEGRADED if one of
 * them is degraded/unknown or any agent is degraded/failed; HEALTHY otherwise.
 */
export function clusterStatus(ctx: SimContext, ccp: PolicyObject): NsxObject {
  const rec = ctx.store.state.cluster_health[ccp.id];
  const interval = reportInterval(ctx, ccp);
  if (!rec) {
    return {
      resource_type: 'AntreaClusterInfo',
      status: 'UNKNOWN',
      report_interval: interval,
      last_heartbeat_time: null,
    };
  }
  let status: string;
  if (ctx.clock.now() - rec.last_heartbeat_time > 3 * interval * 1000) {
    status = 'UNKNOWN';
  } else {
    const parts = [
      rec.info['controller_status'],
      rec.info['mp_adapter_status'],
      rec.info['ccp_adapter_status'],
    ].map(componentHealth);
    const agents = (rec.info['agent_info'] ?? {}) as NsxObject;
    const badAgents = Number(agents['degraded_agent_num'] ?? 0) + Number(agents['failed_agent_num'] ?? 0);
    if (parts.includes('down')) status = 'FAILED';
    else if (parts.some((p) => p !== 'up') || badAgents > 0) status = 'DEGRADED';
    else status = 'HEALTHY';
  }
  return {
    ...rec.info,
    resource_type: 'AntreaClusterInfo',
    status,
    report_interval: interval,
    last_heartbeat_time: rec.last_heartbeat_time,
    heartbeat_count: rec.heartbeat_count,
  };
}

/** Security policies whose container-cluster-span names this cluster. */
export function spannedPolicies(ctx: SimContext, ccp: PolicyObject): PolicyObject[] {
  const out = new Set<PolicyObject>();
  for (const obj of ctx.tree.all()) {
    if (obj.resource_type !== 'SecurityPolicyContainerCluster' || obj['container_cluster_path'] !== ccp.path)
      continue;
    const policy = ctx.tree.get(obj.parent_path);
    if (policy) out.add(policy);
  }
  return [...out];
}

/** DFW category precedence: Ethernet, Emergency, Infrastructure, Environment, Application, then the rest. */
export const CATEGORY_ORDER = [
  'Ethernet',
  'Emergency',
  'Infrastructure',
  'Environment',
  'Application',
] as const;

function categoryRank(c: unknown): number {
  const i = CATEGORY_ORDER.indexOf(c as (typeof CATEGORY_ORDER)[number]);
  return i < 0 ? CATEGORY_ORDER.length : i;
}

function collectStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.startsWith('/')) : [];
}

/** One object of the feed, rendered once per change of its subtree; `json` is filled on first use. */
interface FeedEntry {
  value: NsxObject;
  json?: string;
  /** Paths the object points at that the feed must carry too (in feed order). */
  groups: string[];
  services: string[];
}

interface FeedParts {
  policies: FeedEntry[];
  groups: FeedEntry[];
  services: FeedEntry[];
  /** The serialized feed for `generation` (the store's policy generation). */
  json?: { generation: number; text: string };
}

function entryJson(e: FeedEntry): string {
  e.json ??= JSON.stringify(e.value);
  return e.json;
}

function policyEntry(ctx: SimContext, p: PolicyObject): FeedEntry {
  return ctx.tree.memo(p, 'feed', () => {
    const groups = collectStrings(p['scope']);
    const services: string[] = [];
    for (const r of ctx.tree.children(p.path, 'rules')) {
      for (const f of ['source_groups', 'destination_groups', 'scope']) groups.push(...collectStrings(r[f]));
      services.push(...collectStrings(r['services']));
    }
    return {
      value: {
        ...ctx.tree.render(p),
        container_cluster_span: ctx.tree
          .children(p.path, 'container-cluster-span')
          .map((s) => ctx.tree.render(s)),
      },
      groups,
      services,
    };
  });
}

function groupEntry(ctx: SimContext, g: PolicyObject): FeedEntry {
  return ctx.tree.memo(g, 'feed', () => ({
    value: ctx.tree.render(g),
    groups: expressionReferences(g['expression']),
    services: [],
  }));
}

function serviceEntry(ctx: SimContext, s: PolicyObject): FeedEntry {
  return ctx.tree.memo(s, 'feed', () => {
    const value = ctx.tree.render(s);
    const nested: string[] = [];
    for (const e of (value['service_entries'] as NsxObject[] | undefined) ?? []) {
      if (typeof e['nested_service_path'] === 'string') nested.push(e['nested_service_path']);
    }
    return { value, groups: [], services: nested };
  });
}

/** Breadth-first from `start` through `next`, each path once, skipping paths that do not exist. */
function closure(
  ctx: SimContext,
  start: Iterable<string>,
  entry: (o: PolicyObject) => FeedEntry,
  next: (e: FeedEntry) => string[],
): FeedEntry[] {
  const queue = [...new Set(start)];
  const seen = new Set<string>();
  const out: FeedEntry[] = [];
  for (let i = 0; i < queue.length; i++) {
    const path = queue[i] as string;
    if (seen.has(path)) continue;
    seen.add(path);
    const obj = ctx.tree.get(path);
    if (!obj) continue;
    const e = entry(obj);
    out.push(e);
    for (const n of next(e)) if (!seen.has(n)) queue.push(n);
  }
  return out;
}

/**
 * The feed's objects for one cluster, rebuilt only after the policy tree changed; after a change only
 * the objects whose subtree changed are rendered again (the rest come from PolicyTree.memo), so
 * building is linear in the feed's size and a one-rule change re-renders one policy.
 */
function feedParts(ctx: SimContext, ccp: PolicyObject): FeedParts {
  return ctx.tree.memoAll(`feed:${ccp.path}`, () => {
    const policies = sortBySequence(spannedPolicies(ctx, ccp))
      .sort((a, b) => categoryRank(a['category']) - categoryRank(b['category']))
      .map((p) => policyEntry(ctx, p));
    return {
      policies,
      groups: closure(
        ctx,
        policies.flatMap((e) => e.groups),
        (g) => groupEntry(ctx, g),
        (e) => e.groups,
      ),
      services: closure(
        ctx,
        policies.flatMap((e) => e.services),
        (s) => serviceEntry(ctx, s),
        (e) => e.services,
      ),
    };
  });
}

function feedHead(ctx: SimContext, ccp: PolicyObject): NsxObject {
  return {
    container_cluster_path: ccp.path,
    node_id: ccp['node_id'],
    policy_generation: ctx.store.policyGeneration,
  };
}

/**
 * What the CCP adapter must realize for one cluster (research notes §2.6): spanned policies with
 * their rules, and the groups and services they reference (transitively through PathExpression and
 * NestedServiceServiceEntry). Stands in for NSX-RPC/nestdb messages. Cached per cluster until the
 * policy tree changes: the objects inside are shared and must not be mutated.
 */
export function clusterFeed(ctx: SimContext, ccp: PolicyObject): NsxObject {
  const parts = feedParts(ctx, ccp);
  return {
    ...feedHead(ctx, ccp),
    security_policies: parts.policies.map((e) => e.value),
    groups: parts.groups.map((e) => e.value),
    services: parts.services.map((e) => e.value),
  };
}

/** `JSON.stringify(clusterFeed(ctx, ccp))`, assembled from per-object pieces cached like the feed. */
export function clusterFeedJson(ctx: SimContext, ccp: PolicyObject): string {
  const parts = feedParts(ctx, ccp);
  const generation = ctx.store.policyGeneration;
  if (parts.json?.generation !== generation) {
    const head = JSON.stringify(feedHead(ctx, ccp));
    const list = (es: FeedEntry[]) => `[${es.map(entryJson).join(',')}]`;
    const text = `${head.slice(0, -1)},"security_policies":${list(parts.policies)},"groups":${list(parts.groups)},"services":${list(parts.services)}}`;
    parts.json = { generation, text };
  }
  return parts.json.text;
}
