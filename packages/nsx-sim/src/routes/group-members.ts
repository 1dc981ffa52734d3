import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { type ListQuery, listQuerySchema, paginate } from '../http/list.js';
import { POLICY_PREFIX } from '../http/policy-crud.js';
import { type InventoryView, podIps, podMatches } from '../policy/membership.js';
import type { NsxObject } from '../state/types.js';

/**
 * `GET .../groups/{g}/members/pods?cluster_id=`: pods of the container inventory that the group's
 * expression selects (computed by the simulator; see policy/membership.ts).
 */
export function registerGroupMemberRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get(
    `${POLICY_PREFIX}/infra/domains/:domainId/groups/:groupId/members/pods`,
    {
      schema: {
        querystring: {
          ...listQuerySchema,
          properties: {
            ...listQuerySchema.properties,
            cluster_id: { type: 'string' },
            enforcement_point_path: { type: 'string' },
          },
        },
      },
    },
    async (req) => {
      const { domainId, groupId } = req.params as Record<string, string>;
      const group = ctx.tree.require(`/infra/domains/${domainId}/groups/${groupId}`);
      const q = req.query as ListQuery & { cluster_id?: string };
      const inv = ctx.store.state.inventory;
      const view: InventoryView = {
        pods: Object.values(inv['ContainerApplicationInstance'] ?? {}),
        projects: new Map(Object.entries(inv['ContainerProject'] ?? {})),
        services: new Map(Object.entries(inv['ContainerApplication'] ?? {})),
      };
      const members: NsxObject[] = view.pods
        .filter((p) => q.cluster_id === undefined || p['container_cluster_id'] === q.cluster_id)
        .filter((p) => podMatches(group['expression'], p, view))
        .map((p) => ({ ...p, ip_addresses: podIps(p) }));
      return paginate(members, q, 'external_id');
    },
  );
}
