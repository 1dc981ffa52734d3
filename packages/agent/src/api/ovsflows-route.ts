// `/ovsflows`: br-int's flows as the switch reports them (with counters), all or filtered by
// table (names or numbers, comma separated), by local Pod, or by NetworkPolicy, as antctl's
// `get ovsflows -T/-p/-N` asks (Antrea pkg/agent/apiserver/handlers/ovsflows).
import { type Flow, type FlowStats, formatFlow, formatGroup, type GroupDesc } from '@antrea-ts/openflow';
import type { FastifyInstance } from 'fastify';
import type { PodInterface } from '../cniserver/interface-store.js';
import { podFlowOwner } from '../cniserver/pod-configurator.js';
import type { NetworkPolicyController } from '../networkpolicy/network-policy-controller.js';
import { flowIdentity } from '../openflow/flow-cache.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import type { Pipeline, TableName } from '../openflow/pipeline.js';
import { queryPolicies, UnknownPolicyTypeError } from './policy-query.js';
import { RouteRefusal } from './route-refusal.js';

export interface OvsFlowsSource {
  pods(): PodInterface[];
  readonly sw: FlowSwitch;
  readonly pipeline: Pipeline;
  /** The flows the agent installed for an owner (FlowCache.owned); needed for --pod. */
  ownedFlows?(owner: string): Flow[];
  /** Needed for --networkpolicy. */
  policy?(): NetworkPolicyController | undefined;
  /** The flows and group ids the agent installed for a Service's ports; needed for --service. */
  serviceFlows?(namespace: string, name: string): { flows: Flow[]; groupIds: number[] };
  /** Groups on the switch; needed for --groups and --service. */
  dumpGroups?(): Promise<GroupDesc[]>;
}

interface OvsFlowsQuery {
  table?: string;
  'table-names-only'?: string;
  namespace?: string;
  pod?: string;
  networkpolicy?: string;
  type?: string;
  service?: string;
  groups?: string;
}

function tableIds(src: OvsFlowsSource, spec: string): number[] {
  return spec.split(',').map((t) => {
    const name = t.trim();
    if (/^\d+$/.test(name)) return Number(name);
    if (src.pipeline.has(name as TableName)) return src.pipeline.id(name as TableName);
    throw new RouteRefusal(400, `unknown table ${name}`);
  });
}

/** The filter for one local Pod: the identities of the flows the agent installed for it. */
function podFilter(src: OvsFlowsSource, namespace: string, name: string): (f: FlowStats) => boolean {
  const pod = src.pods().find((p) => p.podNamespace === namespace && p.podName === name);
  if (!pod) throw new RouteRefusal(404, `Pod ${namespace}/${name} has no interface on this Node`);
  if (!src.ownedFlows) throw new RouteRefusal(501, 'per-Pod flows are not available');
  const ids = new Set(src.ownedFlows(podFlowOwner(pod.containerId)).map(flowIdentity));
  return (f) => ids.has(flowIdentity(f));
}

/** The filter for NetworkPolicies: flows of their rules' conjunctions (clauses and action). */
function policyFilter(src: OvsFlowsSource, q: OvsFlowsQuery): (text: string) => boolean {
  const policy = src.policy?.();
  if (!policy) throw new RouteRefusal(404, 'this agent enforces no NetworkPolicies');
  const name = q.networkpolicy as string;
  let names: Set<string>;
  try {
    const filter = { namespace: q.namespace, type: q.type };
    const matches = [
      ...queryPolicies(policy, { ...filter, name }),
      ...queryPolicies(policy, { ...filter, source: name }),
    ];
    names = new Set(matches.map((p) => p.metadata.name));
  } catch (err) {
    if (err instanceof UnknownPolicyTypeError) throw new RouteRefusal(400, err.message);
    throw err;
  }
  if (names.size === 0) throw new RouteRefusal(404, `NetworkPolicy ${name} not found on this Node`);
  const conjIds = new Set<string>();
  for (const r of policy.realizedRules()) {
    if (names.has(r.rule.policy.metadata.name)) for (const id of r.conjIds) conjIds.add(String(id));
  }
  return (text) => {
    for (const m of text.matchAll(/conjunction\((\d+),|conj_id=(\d+)/g)) {
      if (conjIds.has((m[1] ?? m[2]) as string)) return true;
    }
    return false;
  };
}

async function dumpGroups(src: OvsFlowsSource): Promise<GroupDesc[]> {
  if (!src.dumpGroups) throw new RouteRefusal(501, 'OVS groups are not available');
  return src.dumpGroups();
}

/** `all`, or comma-separated group ids (antctl's -G). */
function groupFilter(spec: string): (id: number) => boolean {
  if (spec === 'all' || spec === '') return () => true;
  const ids = new Set(
    spec.split(',').map((t) => {
      const id = Number(t.trim());
      if (!Number.isInteger(id) || id < 0) throw new RouteRefusal(400, `bad group id ${t.trim()}`);
      return id;
    }),
  );
  return (id) => ids.has(id);
}

function groupLines(groups: GroupDesc[], keep: (id: number) => boolean): { flow: string }[] {
  return groups
    .filter((g) => keep(g.groupId))
    .sort((a, b) => a.groupId - b.groupId)
    .map((g) => ({ flow: formatGroup(g) }));
}

/** A Service's flows as the switch has them (with counters), then its groups (Antrea's -S). */
async function serviceLines(
  src: OvsFlowsSource,
  namespace: string,
  name: string,
): Promise<{ flow: string }[]> {
  if (!src.serviceFlows) throw new RouteRefusal(404, 'this agent proxies no Services');
  const { flows, groupIds } = src.serviceFlows(namespace, name);
  if (flows.length === 0)
    throw new RouteRefusal(404, `Service ${namespace}/${name} has no flows on this Node`);
  const ids = new Set(flows.map(flowIdentity));
  const tables = [...new Set(flows.map((f) => f.table ?? 0))];
  const dumps = await Promise.all(tables.map((table) => src.sw.dumpFlows({ table })));
  const lines = dumps
    .flat()
    .filter((f) => ids.has(flowIdentity(f)))
    .map((f) => ({ flow: formatFlow(f, { stats: true }) }));
  const wanted = new Set(groupIds);
  return [...lines, ...groupLines(await dumpGroups(src), (id) => wanted.has(id))];
}

export function registerOvsFlowsRoute(app: FastifyInstance, src: OvsFlowsSource): void {
  app.get<{ Querystring: OvsFlowsQuery }>('/ovsflows', async (req, reply) => {
    const q = req.query;
    try {
      if (q['table-names-only'] !== undefined) {
        return src.pipeline.tables.map((t) => ({ flow: t.name }));
      }
      if (q.groups !== undefined) return groupLines(await dumpGroups(src), groupFilter(q.groups));
      if (q.service !== undefined) return await serviceLines(src, q.namespace ?? '', q.service);
      const tables = q.table !== undefined && q.table !== '' ? tableIds(src, q.table) : undefined;
      const byPod = q.pod ? podFilter(src, q.namespace ?? '', q.pod) : undefined;
      const byPolicy = q.networkpolicy ? policyFilter(src, q) : undefined;
      const dumps =
        tables === undefined
          ? [await src.sw.dumpFlows({})]
          : await Promise.all(tables.map((table) => src.sw.dumpFlows({ table })));
      const out: { flow: string }[] = [];
      for (const f of dumps.flat()) {
        if (byPod && !byPod(f)) continue;
        const text = formatFlow(f, { stats: true });
        if (byPolicy && !byPolicy(text)) continue;
        out.push({ flow: text });
      }
      return out;
    } catch (err) {
      if (err instanceof RouteRefusal) return reply.code(err.status).send({ error: err.message });
      throw err;
    }
  });
}
