import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError } from '../errors.js';
import type { RequestJournal } from '../http/journal.js';
import { clusterFeedJson, clusterStatus, findCluster } from '../policy/clusters.js';
import { loadDemo } from '../seed/demo.js';
import { ensureSystemObjects } from '../seed/system-objects.js';
import { emptyState, type NsxObject, type SimState } from '../state/types.js';
import { consolidatedStatus } from './realization.js';

export const MAX_WAIT_MS = 120_000;

const waitBody = {
  type: 'object',
  required: ['condition'],
  properties: {
    timeout_ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS },
    condition: {
      type: 'object',
      required: ['type'],
      properties: {
        type: {
          enum: [
            'object',
            'inventory',
            'heartbeat',
            'traceflow',
            'realization',
            'statistics',
            'support_bundle',
            'generation',
          ],
        },
      },
    },
  },
};

/** Returns a predicate over the current state for a /sim/wait condition. */
export function waitPredicate(ctx: SimContext, c: NsxObject): () => boolean {
  const s = () => ctx.store.state;
  const str = (k: string) => (typeof c[k] === 'string' ? (c[k] as string) : undefined);
  const num = (k: string) => (typeof c[k] === 'number' ? (c[k] as number) : undefined);
  switch (c['type']) {
    case 'object': {
      const path = str('path') ?? '';
      const exists = c['exists'] !== false;
      const minRev = num('min_revision');
      return () => {
        const o = ctx.tree.get(path);
        if (!exists) return o === undefined;
        return o !== undefined && (minRev === undefined || o._revision >= minRev);
      };
    }
    case 'inventory': {
      const type = str('resource_type') ?? '';
      return () => {
        const items = Object.values(s().inventory[type] ?? {}).filter(
          (o) =>
            (str('external_id') === undefined || o['external_id'] === str('external_id')) &&
            (str('container_cluster_id') === undefined ||
              o['container_cluster_id'] === str('container_cluster_id')),
        );
        const count = num('count');
        if (c['exists'] === false) return items.length === 0;
        return count === undefined ? items.length > 0 : items.length === count;
      };
    }
    case 'heartbeat':
      return () => {
        const ccp = findCluster(ctx, str('cluster') ?? '');
        if (!ccp) return false;
        const rec = s().cluster_health[ccp.id];
        if (!rec || rec.heartbeat_count < (num('min_count') ?? 1)) return false;
        return str('status') === undefined || clusterStatus(ctx, ccp)['status'] === str('status');
      };
    case 'traceflow':
      return () => {
        const rt = s().traceflows[str('id') ?? ''];
        return rt !== undefined && (str('phase') === undefined || rt.phase === str('phase'));
      };
    case 'realization':
      return () => {
        const intent = ctx.tree.get(str('intent_path') ?? '');
        if (!intent) return false;
        const st = consolidatedStatus(ctx, intent);
        const want = str('state') ?? 'SUCCESS';
        const cluster = str('cluster');
        if (cluster === undefined)
          return (st['consolidated_status'] as NsxObject)['consolidated_status'] === want;
        const ccp = findCluster(ctx, cluster);
        const per = (st['consolidated_status_per_enforcement_point'] as NsxObject[])[0]?.[
          'consolidated_status_per_container_cluster'
        ] as NsxObject[];
        return per.some((p) => p['container_cluster_path'] === ccp?.['path'] && p['status'] === want);
      };
    case 'statistics':
      return () => {
        const ccp = findCluster(ctx, str('cluster') ?? '');
        const st = ccp ? s().statistics[ccp.id] : undefined;
        if (!st) return false;
        const rule = str('rule_path');
        return rule === undefined ? Object.keys(st).length > 0 : st[rule] !== undefined;
      };
    case 'support_bundle':
      return () => {
        const r = s().support_bundles[str('request_id') ?? ''];
        return r !== undefined && (str('status') === undefined || r.status === str('status'));
      };
    default: {
      const after = num('after') ?? ctx.store.generation;
      return () => ctx.store.generation > after;
    }
  }
}

function redact(state: SimState): NsxObject {
  const bundles = Object.fromEntries(
    Object.entries(state.support_bundles).map(([k, r]) => [
      k,
      { ...r, clusters: r.clusters.map(({ archive_base64: _a, ...rest }) => rest) },
    ]),
  );
  return { ...state, support_bundles: bundles };
}

/**
 * Test/admin API under /sim/ (never NSX): whole state, request journal, reset, demo seed, waits,
 * the CCP feed for a cluster. Not authenticated.
 */
export function registerSimAdminRoutes(app: FastifyInstance, ctx: SimContext, journal: RequestJournal): void {
  app.get('/sim/state', async () => ({
    generation: ctx.store.generation,
    policy_generation: ctx.store.policyGeneration,
    state: redact(ctx.store.state),
  }));
  app.get(
    '/sim/requests',
    { schema: { querystring: { type: 'object', properties: { since: { type: 'integer' } } } } },
    async (req) => ({
      results: journal.list((req.query as { since?: number }).since ?? 0),
    }),
  );
  app.post(
    '/sim/reset',
    { schema: { body: { type: ['object', 'null'], properties: { seed: { type: 'boolean' } } } } },
    async (req) => {
      ctx.store.state = emptyState();
      journal.clear();
      ensureSystemObjects(ctx.tree);
      if ((req.body as { seed?: boolean } | null)?.seed) loadDemo(ctx.tree, 'admin');
      ctx.store.commit('admin');
      return { generation: ctx.store.generation };
    },
  );
  app.post('/sim/seed', async () => {
    loadDemo(ctx.tree, 'admin');
    return { generation: ctx.store.generation };
  });
  app.post('/sim/wait', { schema: { body: waitBody } }, async (req, reply) => {
    const body = req.body as { condition: NsxObject; timeout_ms?: number };
    const pred = waitPredicate(ctx, body.condition);
    const ac = new AbortController();
    const onClose = () => ac.abort();
    reply.raw.once('close', onClose);
    let ok: boolean;
    try {
      ok = await ctx.store.waitFor(pred, body.timeout_ms ?? 10_000, ac.signal);
    } finally {
      reply.raw.off('close', onClose);
    }
    if (!ok) {
      throw new NsxApiError(
        'NSX_SIM_WAIT_TIMEOUT',
        `condition ${JSON.stringify(body.condition)} not met in time`,
      );
    }
    return { satisfied: true, generation: ctx.store.generation };
  });
  app.get('/sim/clusters/:clusterId/feed', async (req, reply) => {
    const ccp = findCluster(ctx, (req.params as { clusterId: string }).clusterId);
    if (!ccp) throw new NsxApiError('NSX_NOT_FOUND', 'no such cluster');
    return reply.type('application/json; charset=utf-8').send(clusterFeedJson(ctx, ccp));
  });
}
