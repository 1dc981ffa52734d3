import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError, notFound } from '../errors.js';
import { findCluster } from '../policy/clusters.js';
import type { NsxObject, SupportBundleClusterPart, SupportBundleRequest } from '../state/types.js';
import { RPC_PREFIX } from './rpc-prefix.js';

const SB = '/api/v1/administration/support-bundles';
export const MAX_BUNDLE_NODES = 200;

const collectBody = {
  type: 'object',
  required: ['container_nodes'],
  properties: {
    nodes: { type: 'array', items: { type: 'string' } },
    container_nodes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['container_type', 'clusters'],
        properties: {
          container_type: { const: 'ANTREA' },
          clusters: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['cluster_id'],
              properties: {
                cluster_id: { type: 'string', minLength: 1 },
                nodes: { type: 'array', maxItems: MAX_BUNDLE_NODES, items: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    log_age_limit: { type: 'integer', minimum: 1 },
    content_filters: { type: 'array', items: { type: 'string' } },
    remote_file_server: { type: 'object' },
  },
};

const resultBody = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'FAILED' }, error_message: { type: 'string' } },
};

function renderPart(p: SupportBundleClusterPart): NsxObject {
  const { archive_base64: _a, ...rest } = p;
  return rest;
}

function render(r: SupportBundleRequest): NsxObject {
  return { ...r, clusters: r.clusters.map(renderPart) };
}

function rollUp(r: SupportBundleRequest): void {
  const s = r.clusters.map((c) => c.status);
  if (s.every((x) => x === 'COMPLETED')) r.status = 'COMPLETED';
  else if (s.every((x) => x === 'COMPLETED' || x === 'FAILED')) r.status = 'FAILED';
  else if (s.some((x) => x !== 'PENDING')) r.status = 'RUNNING';
  else r.status = 'PENDING';
}

/**
 * Support bundles for Antrea clusters. Public entry: POST support-bundles?action=collect with
 * `container_nodes` (NSX answers with the bundle; the sim answers 202 with a request record instead).
 * Status and archives are read under support-bundles/container-requests (sim). The MP adapter polls
 * /rpc for PENDING parts, uploads an archive (application/octet-stream) or reports failure.
 */
export function registerSupportBundleRoutes(app: FastifyInstance, ctx: SimContext): void {
  const reqs = () => ctx.store.state.support_bundles;
  const busy = (clusterId: string) =>
    Object.values(reqs()).some((r) =>
      r.clusters.some(
        (c) => c.cluster_id === clusterId && (c.status === 'PENDING' || c.status === 'RUNNING'),
      ),
    );

  app.post(
    SB,
    {
      schema: {
        querystring: { type: 'object', required: ['action'], properties: { action: { const: 'collect' } } },
        body: collectBody,
      },
    },
    async (req, reply) => {
      const body = req.body as {
        container_nodes: { clusters: { cluster_id: string; nodes?: string[] }[] }[];
      } & NsxObject;
      const now = ctx.clock.now();
      const parts: SupportBundleClusterPart[] = [];
      for (const cn of body.container_nodes) {
        for (const c of cn.clusters) {
          const known =
            findCluster(ctx, c.cluster_id) ?? ctx.store.state.inventory['ContainerCluster']?.[c.cluster_id];
          if (!known)
            throw new NsxApiError('NSX_INVALID_OBJECT', `Unknown container cluster ${c.cluster_id}`);
          if (busy(c.cluster_id) || parts.some((p) => p.cluster_id === c.cluster_id)) {
            throw new NsxApiError(
              'NSX_CONCURRENT_REQUEST',
              `A support bundle collection for cluster ${c.cluster_id} is already in progress.`,
            );
          }
          parts.push({
            cluster_id: c.cluster_id,
            nodes: c.nodes ?? [],
            status: 'PENDING',
            error_message: null,
            archive_size: 0,
            archive_base64: null,
            last_update_time: now,
          });
        }
      }
      const r: SupportBundleRequest = {
        request_id: ctx.ids.uuid(),
        status: 'PENDING',
        request_time: now,
        request: body,
        clusters: parts,
      };
      reqs()[r.request_id] = r;
      ctx.store.commit('bundle');
      return reply.code(202).send(render(r));
    },
  );
  app.get(`${SB}/container-requests`, async () => {
    const results = Object.values(reqs()).map(render);
    return { results, result_count: results.length };
  });
  const requireReq = (id: string) => {
    const r = reqs()[id];
    if (!r) throw notFound(`support bundle request ${id}`);
    return r;
  };
  app.get(`${SB}/container-requests/:requestId`, async (req) =>
    render(requireReq((req.params as { requestId: string }).requestId)),
  );
  app.get(`${SB}/container-requests/:requestId/clusters/:clusterId/archive`, async (req, reply) => {
    const { requestId, clusterId } = req.params as Record<string, string>;
    const part = requireReq(requestId ?? '').clusters.find((c) => c.cluster_id === clusterId);
    if (!part?.archive_base64) throw notFound(`archive of cluster ${clusterId} in request ${requestId}`);
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="nsx_antrea_${clusterId}.tgz"`)
      .send(Buffer.from(part.archive_base64, 'base64'));
  });

  // Adapter side.
  const partsFor = (clusterParam: string) => {
    const ccp = findCluster(ctx, clusterParam);
    const ids = new Set([clusterParam, ...(ccp ? [ccp.id, String(ccp['node_id'])] : [])]);
    return (c: SupportBundleClusterPart) => ids.has(c.cluster_id);
  };
  app.get(
    `${RPC_PREFIX}/support-bundle-requests`,
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { status: { enum: ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] } },
        },
      },
    },
    async (req) => {
      const { clusterId } = req.params as { clusterId: string };
      const status = (req.query as { status?: string }).status;
      const match = partsFor(clusterId);
      const results: NsxObject[] = [];
      for (const r of Object.values(reqs())) {
        for (const p of r.clusters) {
          if (!match(p) || (status && p.status !== status)) continue;
          results.push({
            request_id: r.request_id,
            request_time: r.request_time,
            log_age_limit: r.request['log_age_limit'],
            ...renderPart(p),
          });
        }
      }
      return { results, result_count: results.length };
    },
  );
  const partOf = (params: unknown) => {
    const { clusterId, requestId } = params as Record<string, string>;
    const r = requireReq(requestId ?? '');
    const part = r.clusters.find(partsFor(clusterId ?? ''));
    if (!part) throw notFound(`support bundle request ${requestId} for cluster ${clusterId}`);
    if (part.status === 'COMPLETED' || part.status === 'FAILED') {
      throw new NsxApiError(
        'NSX_INVALID_OBJECT',
        `support bundle request ${requestId} already ${part.status} for ${clusterId}`,
      );
    }
    return [r, part] as const;
  };
  const item = `${RPC_PREFIX}/support-bundle-requests/:requestId`;
  app.post(`${item}/start`, async (req) => {
    const [r, part] = partOf(req.params);
    part.status = 'RUNNING';
    part.last_update_time = ctx.clock.now();
    rollUp(r);
    ctx.store.commit('bundle');
    return renderPart(part);
  });
  app.post(`${item}/result`, { schema: { body: resultBody } }, async (req) => {
    const [r, part] = partOf(req.params);
    part.status = 'FAILED';
    part.error_message = (req.body as { error_message?: string }).error_message ?? 'collection failed';
    part.last_update_time = ctx.clock.now();
    rollUp(r);
    ctx.store.commit('bundle');
    return renderPart(part);
  });
  app.register(async (child) => {
    for (const type of ['application/octet-stream', 'application/gzip', 'application/x-gzip']) {
      child.addContentTypeParser(
        type,
        { parseAs: 'buffer', bodyLimit: ctx.maxArchiveBytes },
        (_req, body, done) => done(null, body),
      );
    }
    child.put(`${item}/archive`, async (req) => {
      const [r, part] = partOf(req.params);
      const buf = req.body;
      if (!Buffer.isBuffer(buf) || buf.length === 0) {
        throw new NsxApiError(
          'NSX_INVALID_REQUEST',
          'archive body must be non-empty application/octet-stream',
        );
      }
      part.archive_base64 = buf.toString('base64');
      part.archive_size = buf.length;
      part.status = 'COMPLETED';
      part.last_update_time = ctx.clock.now();
      rollUp(r);
      ctx.store.commit('bundle');
      return renderPart(part);
    });
  });
}
