import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError } from '../errors.js';
import { POLICY_PREFIX } from '../http/policy-crud.js';
import { requireCluster, spannedPolicies } from '../policy/clusters.js';
import { CCP_COLLECTION, ccpPath, ENFORCEMENT_POINT_PATH } from '../policy/kinds.js';
import type { NsxObject, PolicyObject, RealizationRecord } from '../state/types.js';
import { RPC_PREFIX } from './rpc-prefix.js';

const reportBody = {
  type: 'object',
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['intent_path', 'state'],
        properties: {
          intent_path: { type: 'string' },
          intent_revision: { type: 'integer', minimum: 0 },
          state: { enum: ['SUCCESS', 'IN_PROGRESS', 'ERROR'] },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['error_message'],
              properties: { error_code: { type: 'integer' }, error_message: { type: 'string' } },
            },
          },
          current_nodes_realized: { type: 'integer', minimum: 0 },
          desired_nodes_realized: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
};

/** A cluster's record counts only if it is for the current intent revision. */
function effectiveState(rec: RealizationRecord | undefined, revision: number): string {
  if (!rec) return 'IN_PROGRESS';
  if (rec.intent_revision !== null && rec.intent_revision < revision) return 'IN_PROGRESS';
  return rec.state;
}

/** Public shape: ConsolidatedRealizedStatus, with a per-cluster list the simulator adds. */
export function consolidatedStatus(ctx: SimContext, intent: PolicyObject): NsxObject {
  const records = ctx.store.state.realization[intent.path] ?? {};
  const spanned = ctx.tree
    .children(ENFORCEMENT_POINT_PATH, CCP_COLLECTION)
    .filter((ccp) => intent.resource_type !== 'SecurityPolicy' || spannedPolicies(ctx, ccp).includes(intent));
  const clusterIds = new Set([...spanned.map((c) => c.id), ...Object.keys(records)]);
  const perCluster = [...clusterIds].sort().map((id) => {
    const rec = records[id];
    return {
      container_cluster_path: ccpPath(id),
      status: effectiveState(rec, intent._revision),
      intent_version: rec?.intent_revision ?? null,
      errors: rec?.errors ?? [],
      current_nodes_realized: rec?.current_nodes_realized ?? null,
      desired_nodes_realized: rec?.desired_nodes_realized ?? null,
      last_update_time: rec?.last_update_time ?? null,
    };
  });
  let overall: string;
  if (perCluster.length === 0) overall = 'UNINITIALIZED';
  else if (perCluster.some((c) => c.status === 'ERROR')) overall = 'ERROR';
  else if (perCluster.every((c) => c.status === 'SUCCESS')) overall = 'SUCCESS';
  else overall = 'IN_PROGRESS';
  return {
    intent_path: intent.path,
    intent_version: String(intent._revision),
    publish_status: 'REALIZED',
    consolidated_status: { consolidated_status: overall },
    consolidated_status_per_enforcement_point: [
      {
        enforcement_point_path: ENFORCEMENT_POINT_PATH,
        consolidated_status: { consolidated_status: overall },
        consolidated_status_per_container_cluster: perCluster,
      },
    ],
  };
}

/**
 * Realization: the CCP adapter reports per-policy state on /rpc; reads use the public
 * GET /policy/api/v1/infra/realized-state/status?intent_path=.
 */
export function registerRealizationRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get(
    `${POLICY_PREFIX}/infra/realized-state/status`,
    {
      schema: {
        querystring: {
          type: 'object',
          required: ['intent_path'],
          properties: {
            intent_path: { type: 'string' },
            include_enforced_status: { type: 'boolean' },
            site_path: { type: 'string' },
          },
        },
      },
    },
    async (req) =>
      consolidatedStatus(ctx, ctx.tree.require((req.query as { intent_path: string }).intent_path)),
  );

  app.post(`${RPC_PREFIX}/realization`, { schema: { body: reportBody } }, async (req) => {
    const ccp = requireCluster(ctx, (req.params as { clusterId: string }).clusterId);
    const items = (req.body as { results: NsxObject[] }).results;
    const unknown = items.map((i) => String(i['intent_path'])).filter((p) => !ctx.tree.get(p));
    if (unknown.length > 0) {
      throw new NsxApiError('NSX_INVALID_PATH', `Unknown intent path(s): ${unknown.join(', ')}`, {
        related: unknown,
      });
    }
    const now = ctx.clock.now();
    for (const i of items) {
      const path = String(i['intent_path']);
      ctx.store.state.realization[path] ??= {};
      const byCluster = ctx.store.state.realization[path];
      byCluster[ccp.id] = {
        state: i['state'] as RealizationRecord['state'],
        intent_revision: typeof i['intent_revision'] === 'number' ? i['intent_revision'] : null,
        errors: (i['errors'] as RealizationRecord['errors'] | undefined) ?? [],
        current_nodes_realized:
          typeof i['current_nodes_realized'] === 'number' ? i['current_nodes_realized'] : null,
        desired_nodes_realized:
          typeof i['desired_nodes_realized'] === 'number' ? i['desired_nodes_realized'] : null,
        last_update_time: now,
      };
    }
    ctx.store.commit('realization');
    return { accepted: items.length };
  });
}
