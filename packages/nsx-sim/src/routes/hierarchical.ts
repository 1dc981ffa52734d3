import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError } from '../errors.js';
import { POLICY_PREFIX } from '../http/policy-crud.js';
import {
  containerClusterSpanKind,
  domainKind,
  groupKind,
  jumpRuleErrors,
  ruleKind,
  securityPolicyKind,
  serviceEntryKind,
  serviceKind,
} from '../policy/kinds.js';
import { joinPath, type PolicyKind } from '../policy/policy-tree.js';
import type { NsxObject } from '../state/types.js';

interface ChildType {
  /** Property of the Child* wrapper holding the object. */
  prop: string;
  kind: PolicyKind;
  /** resource_type of the parent the child may appear under. */
  parent: string;
}

/** H-API `Child*` wrappers the simulator understands. */
export const CHILD_TYPES: Record<string, ChildType> = {
  ChildDomain: { prop: 'Domain', kind: domainKind, parent: 'Infra' },
  ChildService: { prop: 'Service', kind: serviceKind, parent: 'Infra' },
  ChildServiceEntry: { prop: 'ServiceEntry', kind: serviceEntryKind, parent: 'Service' },
  ChildGroup: { prop: 'Group', kind: groupKind, parent: 'Domain' },
  ChildSecurityPolicy: { prop: 'SecurityPolicy', kind: securityPolicyKind, parent: 'Domain' },
  ChildRule: { prop: 'Rule', kind: ruleKind, parent: 'SecurityPolicy' },
  ChildSecurityPolicyContainerCluster: {
    prop: 'SecurityPolicyContainerCluster',
    kind: containerClusterSpanKind,
    parent: 'SecurityPolicy',
  },
};

const infraBody = {
  type: 'object',
  properties: {
    resource_type: { const: 'Infra' },
    children: { type: 'array', items: { type: 'object', required: ['resource_type'] } },
  },
};

/**
 * Hierarchical API: `PATCH /policy/api/v1/infra` with nested `Child*` wrappers applies a whole tree in
 * one transaction (all or nothing); `marked_for_delete: true` deletes. `GET /policy/api/v1/infra`
 * returns the tree (optionally `filter=Type-Domain|Group|...`).
 */
export function registerHierarchicalRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.patch(`${POLICY_PREFIX}/infra`, { schema: { body: infraBody } }, async (req, reply) => {
    const body = req.body as { children?: NsxObject[] };
    const allowOverwrite = String(req.headers['x-allow-overwrite'] ?? '').toLowerCase() === 'true';
    ctx.store.transaction(() => {
      const deletes: string[] = [];
      const walk = (parentPath: string, parentType: string, children: unknown, where: string) => {
        if (children === undefined) return;
        if (!Array.isArray(children))
          throw new NsxApiError('NSX_INVALID_REQUEST', `${where}.children must be an array`);
        children.forEach((raw, i) => {
          const w = `${where}.children[${i}]`;
          const wrapper = (raw ?? {}) as NsxObject;
          const type = CHILD_TYPES[String(wrapper['resource_type'])];
          if (!type) {
            throw new NsxApiError(
              'NSX_INVALID_REQUEST',
              `${w}: unsupported child type ${String(wrapper['resource_type'])} (supported: ${Object.keys(CHILD_TYPES).join(', ')})`,
            );
          }
          if (type.parent !== parentType) {
            throw new NsxApiError(
              'NSX_INVALID_REQUEST',
              `${w}: ${String(wrapper['resource_type'])} cannot be a child of ${parentType}`,
            );
          }
          const obj = wrapper[type.prop] as NsxObject | undefined;
          if (typeof obj !== 'object' || obj === null || typeof obj['id'] !== 'string') {
            throw new NsxApiError('NSX_INVALID_REQUEST', `${w}.${type.prop} with an id is required`);
          }
          const path = joinPath(parentPath, type.kind.collection, obj['id']);
          ctx.tree.checkOwnership(path, req.nsxUser, allowOverwrite);
          if (wrapper['marked_for_delete'] === true || obj['marked_for_delete'] === true) {
            deletes.push(path);
            return;
          }
          const { children: nested, ...fields } = obj;
          const childrenFollow = Array.isArray(nested) && nested.length > 0;
          ctx.tree.write(type.kind, parentPath, obj['id'], fields, 'PATCH', req.nsxUser, { childrenFollow });
          walk(path, kindType(type.kind), nested, `${w}.${type.prop}`);
          if (childrenFollow && type.kind === securityPolicyKind) written.push(path);
        });
      };
      const written: string[] = [];
      walk('/infra', 'Infra', body.children, 'Infra');
      // Deletes last; retry in rounds so that deleting both a referrer and its target works in any order.
      let pending = deletes.filter((p) => ctx.tree.get(p));
      while (pending.length > 0) {
        const failed: [string, unknown][] = [];
        for (const p of pending) {
          try {
            ctx.tree.delete(p);
          } catch (err) {
            failed.push([p, err]);
          }
        }
        if (failed.length === pending.length) throw failed[0]?.[1];
        pending = failed.map(([p]) => p);
      }
      // Policies written with nested rules: their rules as they are after the whole change must fit their category.
      for (const path of written) {
        const policy = ctx.tree.get(path);
        const errors = policy ? jumpRuleErrors(ctx.tree, policy) : [];
        if (errors.length > 0) {
          throw new NsxApiError(
            'NSX_INVALID_OBJECT',
            `SecurityPolicy ${path} is invalid: ${errors.join('; ')}`,
            {
              related: errors,
            },
          );
        }
      }
    });
    return reply.code(200).send();
  });

  app.get(
    `${POLICY_PREFIX}/infra`,
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { filter: { type: 'string' }, base_path: { type: 'string' } },
        },
      },
    },
    async (req) => {
      const q = req.query as { filter?: string };
      const wanted = q.filter?.startsWith('Type-') ? new Set(q.filter.slice(5).split('|')) : undefined;
      const build = (parentPath: string, parentType: string): NsxObject[] => {
        const out: NsxObject[] = [];
        for (const [wrapperType, t] of Object.entries(CHILD_TYPES)) {
          if (t.parent !== parentType) continue;
          // Rules and service entries already come embedded in their parent.
          if (t.kind === ruleKind || t.kind === serviceEntryKind) continue;
          for (const o of ctx.tree.children(parentPath, t.kind.collection)) {
            const nested = build(o.path, kindType(t.kind));
            const include = !wanted || wanted.has(kindType(t.kind));
            if (!include && nested.length === 0) continue;
            const rendered: NsxObject = include ? ctx.tree.render(o) : { id: o.id, path: o.path };
            if (nested.length > 0) rendered['children'] = nested;
            out.push({ resource_type: wrapperType, [t.prop]: rendered, marked_for_delete: false });
          }
        }
        return out;
      };
      return { resource_type: 'Infra', id: 'infra', path: '/infra', children: build('/infra', 'Infra') };
    },
  );
}

function kindType(kind: PolicyKind): string {
  return kind === serviceEntryKind ? 'ServiceEntry' : kind.resourceType;
}
