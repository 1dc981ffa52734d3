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
  const out: PolicyObject[] = [];
  for (const obj of ctx.tree.all()) {
    if (obj.resource_type !== 'SecurityPolicyContainerCluster' || obj['container_cluster_path'] !== ccp.path)
      continue;
    const policy = ctx.tree.get(obj.parent_path);
    if (policy && !out.includes(policy)) out.push(policy);
  }
  return out;
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

/**
 * What the CCP adapter must realize for one cluster (research notes §2.6): spanned policies with
 * their rules, and the groups and services they reference (transitively through PathExpression and
 * NestedServiceServiceEntry). Stands in for NSX-RPC/nestdb messages.
 */
export function clusterFeed(ctx: SimContext, ccp: PolicyObject): NsxObject {
  const policies = sortBySequence(spannedPolicies(ctx, ccp)).sort(
    (a, b) => categoryRank(a['category']) - categoryRank(b['category']),
  );
  const groupPaths = new Set<string>();
  const servicePaths = new Set<string>();
  for (const p of policies) {
    for (const g of collectStrings(p['scope'])) groupPaths.add(g);
    for (const r of ctx.tree.children(p.path, 'rules')) {
      for (const f of ['source_groups', 'destination_groups', 'scope']) {
        for (const g of collectStrings(r[f])) groupPaths.add(g);
      }
      for (const s of collectStrings(r['services'])) servicePaths.add(s);
    }
  }
  const groups: NsxObject[] = [];
  const queue = [...groupPaths];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const gp = queue.shift() as string;
    if (seen.has(gp)) continue;
    seen.add(gp);
    const g = ctx.tree.get(gp);
    if (!g) continue;
    groups.push(ctx.tree.render(g));
    queue.push(...expressionReferences(g['expression']));
  }
  const services: NsxObject[] = [];
  const squeue = [...servicePaths];
  const sseen = new Set<string>();
  while (squeue.length > 0) {
    const sp = squeue.shift() as string;
    if (sseen.has(sp)) continue;
    sseen.add(sp);
    const s = ctx.tree.get(sp);
    if (!s) continue;
    const rendered = ctx.tree.render(s);
    services.push(rendered);
    for (const e of (rendered['service_entries'] as NsxObject[] | undefined) ?? []) {
      if (typeof e['nested_service_path'] === 'string') squeue.push(e['nested_service_path']);
    }
  }
  return {
    container_cluster_path: ccp.path,
    node_id: ccp['node_id'],
    policy_generation: ctx.store.policyGeneration,
    security_policies: policies.map((p) => ({
      ...ctx.tree.render(p),
      container_cluster_span: ctx.tree
        .children(p.path, 'container-cluster-span')
        .map((s) => ctx.tree.render(s)),
    })),
    groups,
    services,
  };
}
