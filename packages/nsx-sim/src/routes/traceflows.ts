import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError, notFound } from '../errors.js';
import { POLICY_PREFIX, registerPolicyCrud } from '../http/policy-crud.js';
import { requireCluster } from '../policy/clusters.js';
import { traceflowKind } from '../policy/kinds.js';
import { traceflowConfigBody } from '../policy/schemas.js';
import type { NsxObject, PolicyObject, TraceflowRuntime } from '../state/types.js';
import { RPC_PREFIX } from './rpc-prefix.js';

const TRACEFLOWS = '/infra/antrea/traceflows';
/** NSX garbage-collects traceflow configs after 2 h without activity. */
export const TRACEFLOW_GC_MS = 2 * 60 * 60 * 1000;

const observation = {
  type: 'object',
  required: ['component_type', 'observation_type'],
  properties: {
    component_type: {
      enum: [
        'UNKNOWN',
        'ANTREA_SPOOFGUARD',
        'ANTREA_LB',
        'ANTREA_ROUTING',
        'ANTREA_DFW',
        'ANTREA_FORWARDING',
      ],
    },
    observation_type: {
      enum: [
        'AntreaTraceflowObservationDelivered',
        'AntreaTraceflowObservationReceived',
        'AntreaTraceflowObservationForwarded',
        'AntreaTraceflowObservationDropped',
      ],
    },
    container_node_id: { type: 'string' },
    timestamp: { type: 'integer' },
  },
};

const resultBody = {
  type: 'object',
  required: ['phase'],
  properties: {
    phase: { enum: ['SUCCEEDED', 'FAILED'] },
    reason: { type: 'string' },
    observations: { type: 'array', items: observation },
    results: { type: 'array', items: { type: 'object' } },
  },
};

/**
 * Antrea traceflow: NSX users create AntreaTraceflowConfig objects (public Policy API), the MP adapter
 * polls for PENDING ones on /rpc, marks them RUNNING and posts the result; status and observations are
 * read through the public endpoints.
 */
export function registerTraceflowRoutes(app: FastifyInstance, ctx: SimContext): void {
  const runtimes = () => ctx.store.state.traceflows;
  const pending = (): TraceflowRuntime => ({
    phase: 'PENDING',
    reason: null,
    observations: [],
    results: [],
    last_activity: ctx.clock.now(),
    started_by: null,
  });
  const gc = () => {
    const cutoff = ctx.clock.now() - TRACEFLOW_GC_MS;
    let changed = false;
    for (const [id, rt] of Object.entries(runtimes())) {
      if (rt.last_activity < cutoff) {
        delete runtimes()[id];
        ctx.tree.removeSubtree(`${TRACEFLOWS}/${id}`);
        changed = true;
      }
    }
    if (changed) ctx.store.commit('traceflow');
  };
  app.addHook('onRequest', async (req) => {
    if (req.url.includes('/traceflows')) gc();
  });

  const inventoryHas = (type: string, id: string, clusterId?: string) => {
    const o = ctx.store.state.inventory[type]?.[id];
    return o !== undefined && (clusterId === undefined || o['container_cluster_id'] === clusterId);
  };

  registerPolicyCrud(app, ctx, {
    kind: traceflowKind,
    collectionUrl: TRACEFLOWS,
    idParam: 'traceflowId',
    parentPath: () => '/infra/antrea',
    bodySchema: traceflowConfigBody,
    beforeWrite: (_req, path, body, mode) => {
      const existing = ctx.tree.get(path);
      const merged = mode === 'PATCH' && existing ? { ...existing, ...body } : body;
      const cluster = String(merged['container_cluster_id'] ?? '');
      if (!inventoryHas('ContainerCluster', cluster)) {
        throw new NsxApiError(
          'NSX_INVALID_OBJECT',
          `container_cluster_id ${cluster} is not a container cluster in the inventory`,
        );
      }
      const src = String(merged['source_external_id'] ?? '');
      if (!inventoryHas('ContainerApplicationInstance', src, cluster)) {
        throw new NsxApiError(
          'NSX_INVALID_OBJECT',
          `source_external_id ${src} is not a pod of cluster ${cluster}`,
        );
      }
      const dst = merged['destination_external_id'];
      if (
        typeof dst === 'string' &&
        dst !== '' &&
        !inventoryHas('ContainerApplicationInstance', dst, cluster) &&
        !inventoryHas('ContainerApplication', dst, cluster)
      ) {
        throw new NsxApiError(
          'NSX_INVALID_OBJECT',
          `destination_external_id ${dst} is not a pod or service of cluster ${cluster}`,
        );
      }
    },
    afterWrite: (obj) => {
      runtimes()[String(obj['id'])] = pending();
      ctx.store.commit('traceflow');
    },
    delete: (_req, path) => {
      const id = path.slice(TRACEFLOWS.length + 1);
      ctx.tree.delete(path);
      delete runtimes()[id];
      ctx.store.commit('traceflow');
    },
  });

  const item = `${POLICY_PREFIX}${TRACEFLOWS}/:traceflowId`;
  const requireTf = (id: string): [PolicyObject, TraceflowRuntime] => {
    const cfg = ctx.tree.get(`${TRACEFLOWS}/${id}`);
    if (!cfg) throw notFound(`${TRACEFLOWS}/${id}`);
    const rt = runtimes()[id] ?? pending();
    runtimes()[id] = rt;
    return [cfg, rt];
  };

  // Retrace: "retrace even if observations exist; old observations lost".
  app.post(item, async (req) => {
    const id = (req.params as { traceflowId: string }).traceflowId;
    const [cfg] = requireTf(id);
    runtimes()[id] = pending();
    ctx.store.commit('traceflow');
    return ctx.tree.render(cfg);
  });
  app.get(`${item}/status`, async (req) => {
    const [cfg, rt] = requireTf((req.params as { traceflowId: string }).traceflowId);
    return {
      resource_type: 'AntreaTraceflowStatus',
      phase: rt.phase,
      reason: rt.reason ?? undefined,
      traceflow_path: cfg.path,
    };
  });
  app.get(`${item}/observations`, async (req) => {
    const [, rt] = requireTf((req.params as { traceflowId: string }).traceflowId);
    return { results: rt.observations, result_count: rt.observations.length };
  });

  // Adapter side.
  const forCluster = (clusterParam: string, cfg: PolicyObject) => {
    const ccp = requireCluster(ctx, clusterParam);
    const c = cfg['container_cluster_id'];
    return c === ccp['node_id'] || c === ccp.id;
  };
  app.get(
    `${RPC_PREFIX}/traceflows`,
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { phase: { enum: ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED'] } },
        },
      },
    },
    async (req) => {
      const { clusterId } = req.params as { clusterId: string };
      const phase = (req.query as { phase?: string }).phase;
      const results: NsxObject[] = [];
      for (const cfg of ctx.tree.children('/infra/antrea', 'traceflows')) {
        if (!forCluster(clusterId, cfg)) continue;
        const rt = runtimes()[cfg.id] ?? pending();
        if (phase && rt.phase !== phase) continue;
        results.push({ config: ctx.tree.render(cfg), phase: rt.phase });
      }
      return { results, result_count: results.length };
    },
  );
  const rpcItem = `${RPC_PREFIX}/traceflows/:traceflowId`;
  const requireForCluster = (params: unknown) => {
    const { clusterId, traceflowId } = params as { clusterId: string; traceflowId: string };
    const [cfg, rt] = requireTf(traceflowId);
    if (!forCluster(clusterId, cfg)) throw notFound(`${TRACEFLOWS}/${traceflowId} for cluster ${clusterId}`);
    return [cfg, rt] as const;
  };
  app.post(`${rpcItem}/start`, async (req) => {
    const [cfg, rt] = requireForCluster(req.params);
    if (rt.phase === 'SUCCEEDED' || rt.phase === 'FAILED') {
      throw new NsxApiError(
        'NSX_INVALID_OBJECT',
        `traceflow ${cfg.id} already finished (${rt.phase}); retrace it first`,
      );
    }
    rt.phase = 'RUNNING';
    rt.started_by = req.nsxUser;
    rt.last_activity = ctx.clock.now();
    ctx.store.commit('traceflow');
    return { phase: rt.phase };
  });
  app.post(`${rpcItem}/result`, { schema: { body: resultBody } }, async (req) => {
    const [cfg, rt] = requireForCluster(req.params);
    if (rt.phase === 'SUCCEEDED' || rt.phase === 'FAILED') {
      throw new NsxApiError('NSX_INVALID_OBJECT', `traceflow ${cfg.id} already finished (${rt.phase})`);
    }
    const body = req.body as {
      phase: 'SUCCEEDED' | 'FAILED';
      reason?: string;
      observations?: NsxObject[];
      results?: NsxObject[];
    };
    rt.phase = body.phase;
    rt.reason = body.reason ?? null;
    rt.observations = (body.observations ?? []).map((o) => ({
      resource_type: 'AntreaTraceflowObservation',
      ...o,
    }));
    rt.results = body.results ?? [];
    rt.last_activity = ctx.clock.now();
    ctx.store.commit('traceflow');
    return { phase: rt.phase };
  });
}
