import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError, notFound } from '../errors.js';
import { type ListQuery, listQuerySchema, paginate } from '../http/list.js';
import type { NsxObject } from '../state/types.js';

/** Container inventory resource types and their read collections under /api/v1/fabric. */
export const INVENTORY_COLLECTIONS = {
  ContainerCluster: 'container-clusters',
  ContainerProject: 'container-projects',
  ContainerApplication: 'container-applications',
  ContainerApplicationInstance: 'container-application-instances',
  ContainerClusterNode: 'container-cluster-nodes',
  ContainerNetworkPolicy: 'container-network-policies',
  ContainerIngressPolicy: 'container-ingress-policies',
} as const;

export type InventoryType = keyof typeof INVENTORY_COLLECTIONS;
const TYPES = Object.keys(INVENTORY_COLLECTIONS) as InventoryType[];

const tags = {
  type: 'array',
  maxItems: 30,
  items: { type: 'object', properties: { scope: { type: 'string' }, tag: { type: 'string' } } },
};

const containerObject = {
  type: 'object',
  required: ['resource_type', 'external_id'],
  properties: {
    resource_type: { enum: TYPES },
    external_id: { type: 'string', minLength: 1 },
    display_name: { type: 'string' },
    tags,
    container_cluster_id: { type: 'string' },
    container_project_id: { type: 'string' },
    network_status: { enum: ['HEALTHY', 'UNHEALTHY'] },
    network_errors: { type: 'array', items: { type: 'object' } },
    origin_properties: {
      type: 'array',
      items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } },
    },
    status: { type: 'string' },
  },
};

const batchBody = {
  type: 'object',
  required: ['container_inventory_objects'],
  properties: {
    container_inventory_objects: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object_update_type', 'container_object'],
        properties: {
          object_update_type: { enum: ['CREATE', 'UPDATE', 'DELETE'] },
          container_object: containerObject,
        },
      },
    },
  },
};

const clusterBody = {
  ...containerObject,
  properties: {
    ...containerObject.properties,
    resource_type: { const: 'ContainerCluster' },
    cluster_type: { type: 'string' },
    cni_type: { type: 'string' },
    infrastructure: { type: 'object' },
  },
};

/** Which field ties an object of each type to its parent when its parent is deleted. */
function belongsToCluster(obj: NsxObject, clusterId: string): boolean {
  return obj['container_cluster_id'] === clusterId;
}

/**
 * MP container inventory: `POST /api/v1/inventory/container/{cluster}?action=updates` (batch of
 * CREATE/UPDATE/DELETE, validated as a whole, then applied in order) and the read-only
 * `/api/v1/fabric/container-*` lists and items.
 */
export function registerInventoryRoutes(app: FastifyInstance, ctx: SimContext): void {
  const inv = () => ctx.store.state.inventory;
  const bucket = (t: string) => {
    const all = inv();
    all[t] ??= {};
    return all[t];
  };
  const get = (t: string, id: string) => {
    const b = inv()[t];
    return b && Object.hasOwn(b, id) ? b[id] : undefined;
  };
  const deleteCluster = (id: string) => {
    for (const t of TYPES) {
      const b = inv()[t];
      if (!b) continue;
      for (const [k, o] of Object.entries(b))
        if (belongsToCluster(o, id) || (t === 'ContainerCluster' && k === id)) delete b[k];
    }
  };

  app.post(
    '/api/v1/inventory/container/:clusterId',
    {
      schema: {
        body: batchBody,
        querystring: { type: 'object', required: ['action'], properties: { action: { const: 'updates' } } },
      },
    },
    async (req, reply) => {
      const clusterId = (req.params as { clusterId: string }).clusterId;
      const items = (
        req.body as {
          container_inventory_objects: { object_update_type: string; container_object: NsxObject }[];
        }
      ).container_inventory_objects;
      // Validate against the state as it will be when each item applies.
      const exists = new Map<string, boolean>();
      const key = (t: string, id: string) => `${t}/${id}`;
      const has = (t: string, id: string) => exists.get(key(t, id)) ?? get(t, id) !== undefined;
      const errors: string[] = [];
      items.forEach((it, i) => {
        const o = it.container_object;
        const t = String(o['resource_type']);
        const id = String(o['external_id']);
        const where = `container_inventory_objects[${i}] (${t} ${id})`;
        if (t === 'ContainerCluster' && id !== clusterId) {
          errors.push(
            `${where}: ContainerCluster external_id must equal the cluster id in the URL (${clusterId})`,
          );
        }
        if (
          t !== 'ContainerCluster' &&
          o['container_cluster_id'] !== undefined &&
          o['container_cluster_id'] !== clusterId
        ) {
          errors.push(
            `${where}: container_cluster_id ${String(o['container_cluster_id'])} does not match the URL (${clusterId})`,
          );
        }
        if (
          it.object_update_type !== 'DELETE' &&
          t !== 'ContainerCluster' &&
          !has('ContainerCluster', clusterId)
        ) {
          errors.push(
            `${where}: container cluster ${clusterId} does not exist; create the ContainerCluster first`,
          );
        }
        if (it.object_update_type === 'UPDATE' && !has(t, id))
          errors.push(`${where}: cannot UPDATE an object that does not exist`);
        if (it.object_update_type === 'DELETE') exists.set(key(t, id), false);
        else exists.set(key(t, id), true);
      });
      if (errors.length > 0) {
        throw new NsxApiError(
          'NSX_INVALID_OBJECT',
          `Container inventory update rejected: ${errors.join('; ')}`,
          {
            related: errors,
          },
        );
      }
      const now = ctx.clock.now();
      for (const it of items) {
        const o = it.container_object;
        const t = String(o['resource_type']);
        const id = String(o['external_id']);
        if (it.object_update_type === 'DELETE') {
          if (t === 'ContainerCluster') deleteCluster(id);
          else delete bucket(t)[id];
          continue;
        }
        const base = it.object_update_type === 'UPDATE' ? (get(t, id) ?? {}) : {};
        const next: NsxObject = { ...base, ...o, _last_sync_time: now };
        if (t !== 'ContainerCluster') next['container_cluster_id'] = clusterId;
        next['display_name'] ??= id;
        bucket(t)[id] = next;
      }
      ctx.store.commit('inventory');
      return reply.code(200).send();
    },
  );

  app.post('/api/v1/fabric/container-clusters', { schema: { body: clusterBody } }, async (req, reply) => {
    const o = req.body as NsxObject;
    const id = String(o['external_id']);
    if (get('ContainerCluster', id))
      throw new NsxApiError('NSX_ALREADY_EXISTS', `Container cluster ${id} already exists.`);
    const obj = { ...o, display_name: o['display_name'] ?? id, _last_sync_time: ctx.clock.now() };
    bucket('ContainerCluster')[id] = obj;
    ctx.store.commit('inventory');
    return reply.code(201).send(obj);
  });
  app.delete('/api/v1/fabric/container-clusters/:id', async (req, reply) => {
    deleteCluster((req.params as { id: string }).id);
    ctx.store.commit('inventory');
    return reply.code(200).send();
  });

  for (const t of TYPES) {
    const url = `/api/v1/fabric/${INVENTORY_COLLECTIONS[t]}`;
    app.get(
      url,
      {
        schema: {
          querystring: {
            ...listQuerySchema,
            properties: {
              ...listQuerySchema.properties,
              container_cluster_id: { type: 'string' },
              container_project_id: { type: 'string' },
              cluster_type: { type: 'string' },
              infra_type: { type: 'string' },
              scope_id: { type: 'string' },
            },
          },
        },
      },
      async (req) => {
        const q = req.query as ListQuery & Record<string, string | undefined>;
        const items = Object.values(inv()[t] ?? {}).filter((o) => {
          if (
            q['container_cluster_id'] &&
            t !== 'ContainerCluster' &&
            o['container_cluster_id'] !== q['container_cluster_id']
          )
            return false;
          if (q['container_project_id'] && o['container_project_id'] !== q['container_project_id'])
            return false;
          if (q['cluster_type'] && o['cluster_type'] !== q['cluster_type']) return false;
          if (
            q['infra_type'] &&
            (o['infrastructure'] as NsxObject | undefined)?.['infra_type'] !== q['infra_type']
          )
            return false;
          return true;
        });
        return paginate(items, q, 'external_id');
      },
    );
    app.get(`${url}/:id`, async (req) => {
      const id = (req.params as { id: string }).id;
      const o = get(t, id);
      if (!o) throw notFound(`${t}/${id}`);
      return o;
    });
  }
}
