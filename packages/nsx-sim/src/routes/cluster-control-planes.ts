import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError } from '../errors.js';
import { POLICY_PREFIX, registerPolicyCrud } from '../http/policy-crud.js';
import { clusterStatus } from '../policy/clusters.js';
import {
  CCP_COLLECTION,
  ccpPath,
  certificateOwner,
  clusterControlPlaneKind,
  ENFORCEMENT_POINT_PATH,
  heartbeatConfigKind,
} from '../policy/kinds.js';
import { antreaClusterInfoBody, clusterControlPlaneBody, heartbeatConfigBody } from '../policy/schemas.js';
import type { NsxObject } from '../state/types.js';

const CCP_URL = `/infra/sites/:siteId/enforcement-points/:epId/${CCP_COLLECTION}`;

function checkSite(p: Record<string, string>): string {
  if (p['siteId'] !== 'default' || p['epId'] !== 'default') {
    throw new NsxApiError(
      'NSX_NOT_FOUND',
      `Only site "default" and enforcement point "default" exist in the simulator.`,
    );
  }
  return ENFORCEMENT_POINT_PATH;
}

/** Removes everything the simulator keeps about a cluster outside the policy tree. */
function forgetCluster(ctx: SimContext, id: string): void {
  const s = ctx.store.state;
  delete s.cluster_health[id];
  delete s.statistics[id];
  for (const byCluster of Object.values(s.realization)) delete byCluster[id];
}

/**
 * ClusterControlPlane registration (PUT = join, DELETE ?cascade=true), its status (AntreaClusterInfo:
 * GET; PUT/PATCH = heartbeat from the MP adapter) and heartbeat-config.
 */
export function registerClusterControlPlaneRoutes(app: FastifyInstance, ctx: SimContext): void {
  registerPolicyCrud(app, ctx, {
    kind: clusterControlPlaneKind,
    collectionUrl: CCP_URL,
    idParam: 'ccpId',
    parentPath: checkSite,
    bodySchema: clusterControlPlaneBody,
    methods: ['GET', 'LIST', 'PUT', 'DELETE'],
    beforeWrite: (_req, path, body) => {
      const pem = body['certificate'];
      if (typeof pem !== 'string') return;
      const owner = certificateOwner(ctx.tree, pem, path);
      if (owner) {
        throw new NsxApiError(
          'NSX_CERTIFICATE_CONFLICT',
          `certificate conflict with clusterControlPlane node id ${String(owner['node_id'])} (${owner.id}); every cluster needs its own certificate.`,
        );
      }
    },
    afterWrite: (obj, created) => {
      if (!created) return;
      ctx.tree.write(heartbeatConfigKind, String(obj['path']), 'default', {}, 'PATCH', 'system');
    },
    delete: (req, path) => {
      const ccp = ctx.tree.get(path);
      if (!ccp) return;
      const cascade = (req.query as Record<string, unknown>)['cascade'] === 'true';
      ctx.store.transaction(() => {
        if (cascade) {
          for (const [from] of ctx.tree.referrersOf(path)) ctx.tree.removeSubtree(from);
        }
        ctx.tree.delete(path);
        forgetCluster(ctx, ccp.id);
        ctx.store.commit('policy');
      });
    },
  });

  const ccpUrl = `${POLICY_PREFIX}${CCP_URL}/:ccpId`;
  const ccpOf = (p: Record<string, string>) => {
    checkSite(p);
    return ctx.tree.require(ccpPath(p['ccpId'] ?? ''));
  };

  app.get(`${ccpUrl}/status`, async (req) => clusterStatus(ctx, ccpOf(req.params as Record<string, string>)));

  const heartbeat = async (req: { params: unknown; body: unknown }) => {
    const ccp = ccpOf(req.params as Record<string, string>);
    const body = (req.body ?? {}) as NsxObject;
    const prev = ctx.store.state.cluster_health[ccp.id];
    const { status: _ignored, last_heartbeat_time: _t, ...info } = body;
    ctx.store.state.cluster_health[ccp.id] = {
      info,
      last_heartbeat_time: ctx.clock.now(),
      heartbeat_count: (prev?.heartbeat_count ?? 0) + 1,
    };
    ctx.store.commit('health');
    return clusterStatus(ctx, ccp);
  };
  app.put(`${ccpUrl}/status`, { schema: { body: antreaClusterInfoBody } }, heartbeat);
  app.patch(`${ccpUrl}/status`, { schema: { body: antreaClusterInfoBody } }, heartbeat);

  const hbPath = (p: Record<string, string>) => `${ccpOf(p).path}/heartbeat-config/default`;
  const renderHb = (o: NsxObject) => ({ ...o, id: 'heartbeat-config' });
  app.get(`${ccpUrl}/heartbeat-config`, async (req) =>
    renderHb(ctx.tree.render(ctx.tree.require(hbPath(req.params as Record<string, string>)))),
  );
  for (const mode of ['PUT', 'PATCH'] as const) {
    app.route({
      method: mode,
      url: `${ccpUrl}/heartbeat-config`,
      schema: { body: heartbeatConfigBody },
      handler: async (req) => {
        const ccp = ccpOf(req.params as Record<string, string>);
        const { id: _id, ...body } = (req.body ?? {}) as NsxObject;
        return renderHb(ctx.tree.write(heartbeatConfigKind, ccp.path, 'default', body, mode, req.nsxUser));
      },
    });
  }
}
