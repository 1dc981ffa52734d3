import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SimContext } from '../context.js';
import { notFound } from '../errors.js';
import { joinPath, type PolicyKind, type WriteMode } from '../policy/policy-tree.js';
import type { NsxObject, PolicyObject } from '../state/types.js';
import { type ListQuery, listQuerySchema, paginate } from './list.js';

export const POLICY_PREFIX = '/policy/api/v1';

type Params = Record<string, string>;

export interface PolicyCrudSpec {
  kind: PolicyKind;
  /** Collection URL without the prefix, e.g. "/infra/domains/:domainId/groups". */
  collectionUrl: string;
  idParam: string;
  /** Parent policy path from URL params. */
  parentPath(params: Params): string;
  bodySchema: object;
  methods?: readonly ('GET' | 'LIST' | 'PATCH' | 'PUT' | 'DELETE')[];
  /** Extra list filters from the query string. */
  listFilter?(obj: PolicyObject, query: Record<string, unknown>): boolean;
  extraListQuery?: Record<string, object>;
  /** Runs before a write (extra checks). */
  beforeWrite?(req: FastifyRequest, path: string, body: NsxObject, mode: WriteMode): void;
  /** Runs after a write. */
  afterWrite?(obj: NsxObject, created: boolean): void;
  /** Replaces the default delete. */
  delete?(req: FastifyRequest, path: string): void;
}

function allowOverwrite(req: FastifyRequest): boolean {
  return String(req.headers['x-allow-overwrite'] ?? '').toLowerCase() === 'true';
}

/**
 * GET (list and one), PATCH (create or merge; 200 with empty body like NSX), PUT (create or replace,
 * `_revision` required on update; returns the object) and DELETE (200, idempotent) for one family.
 */
export function registerPolicyCrud(app: FastifyInstance, ctx: SimContext, spec: PolicyCrudSpec): void {
  const methods = new Set(spec.methods ?? ['GET', 'LIST', 'PATCH', 'PUT', 'DELETE']);
  const collection = `${POLICY_PREFIX}${spec.collectionUrl}`;
  const item = `${collection}/:${spec.idParam}`;
  const pathOf = (params: Params) =>
    joinPath(spec.parentPath(params), spec.kind.collection, params[spec.idParam] ?? '');

  if (methods.has('LIST')) {
    app.get(
      collection,
      {
        schema: {
          querystring: {
            ...listQuerySchema,
            properties: { ...listQuerySchema.properties, ...(spec.extraListQuery ?? {}) },
          },
        },
      },
      async (req) => {
        const params = req.params as Params;
        const parent = spec.parentPath(params);
        if (!ctx.tree.exists(parent)) throw notFound(parent);
        const query = req.query as ListQuery & Record<string, unknown>;
        const items = ctx.tree
          .children(parent, spec.kind.collection)
          .filter((o) => spec.listFilter?.(o, query) ?? true)
          .map((o) => ctx.tree.render(o));
        return paginate(items, query);
      },
    );
  }
  if (methods.has('GET')) {
    app.get(item, async (req) => ctx.tree.render(ctx.tree.require(pathOf(req.params as Params))));
  }
  const write = (mode: WriteMode) => async (req: FastifyRequest) => {
    const params = req.params as Params;
    const body = (req.body ?? {}) as NsxObject;
    const path = pathOf(params);
    const created = ctx.tree.get(path) === undefined;
    ctx.tree.checkOwnership(path, req.nsxUser, allowOverwrite(req));
    spec.beforeWrite?.(req, path, body, mode);
    const obj = ctx.tree.write(
      spec.kind,
      spec.parentPath(params),
      params[spec.idParam] ?? '',
      body,
      mode,
      req.nsxUser,
    );
    spec.afterWrite?.(obj, created);
    return obj;
  };
  if (methods.has('PATCH')) {
    app.patch(item, { schema: { body: spec.bodySchema } }, async (req, reply) => {
      await write('PATCH')(req);
      return reply.code(200).send();
    });
  }
  if (methods.has('PUT')) {
    app.put(item, { schema: { body: spec.bodySchema } }, write('PUT'));
  }
  if (methods.has('DELETE')) {
    app.delete(item, async (req, reply) => {
      const path = pathOf(req.params as Params);
      ctx.tree.checkOwnership(path, req.nsxUser, allowOverwrite(req));
      if (spec.delete) spec.delete(req, path);
      else ctx.tree.delete(path);
      return reply.code(200).send();
    });
  }
}
