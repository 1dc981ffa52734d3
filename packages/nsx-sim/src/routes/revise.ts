import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError } from '../errors.js';
import { POLICY_PREFIX } from '../http/policy-crud.js';
import { ruleKind, securityPolicyKind } from '../policy/kinds.js';
import { joinPath, type PolicyKind, sortBySequence } from '../policy/policy-tree.js';
import type { NsxObject, PolicyObject } from '../state/types.js';

const SPACING = 10;

const reviseQuery = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { const: 'revise' },
    operation: { enum: ['insert_top', 'insert_bottom', 'insert_after', 'insert_before'] },
    anchor_path: { type: 'string' },
  },
};

/**
 * Picks a sequence_number for `self` at `index` among `others` (sorted); renumbers everyone with
 * spacing 10 when there is no free integer between the neighbours.
 */
function placeAt(
  ctx: SimContext,
  self: PolicyObject,
  others: PolicyObject[],
  index: number,
  user: string,
): void {
  const seq = (o: PolicyObject | undefined) =>
    typeof o?.['sequence_number'] === 'number' ? (o['sequence_number'] as number) : 0;
  const prev = others[index - 1];
  const next = others[index];
  let chosen: number | undefined;
  if (!prev && !next) chosen = seq(self);
  else if (!prev) chosen = seq(next) > 0 ? Math.floor(seq(next) / 2) : undefined;
  else if (!next) chosen = seq(prev) + SPACING;
  else if (seq(next) - seq(prev) >= 2) chosen = Math.floor((seq(prev) + seq(next)) / 2);
  const now = ctx.clock.now();
  const touch = (o: PolicyObject, n: number) => {
    if (o === self) {
      o['sequence_number'] = n; // its _revision was bumped by the write
      ctx.tree.markChanged(o.path);
      return;
    }
    if (o['sequence_number'] === n) return;
    o['sequence_number'] = n;
    o._revision += 1;
    o['_last_modified_time'] = now;
    o['_last_modified_user'] = user;
    ctx.tree.markChanged(o.path);
  };
  if (chosen !== undefined) {
    touch(self, chosen);
    return;
  }
  const ordered = [...others];
  ordered.splice(index, 0, self);
  ordered.forEach((o, i) => {
    touch(o, (i + 1) * SPACING);
  });
}

function revise(
  ctx: SimContext,
  kind: PolicyKind,
  parentPath: string,
  id: string,
  body: NsxObject,
  query: { operation?: string; anchor_path?: string },
  user: string,
  sameGroup: (a: PolicyObject, b: PolicyObject) => boolean,
): NsxObject {
  return ctx.store.transaction(() => {
    const path = joinPath(parentPath, kind.collection, id);
    ctx.tree.write(kind, parentPath, id, body, 'PATCH', user);
    const self = ctx.tree.require(path);
    const others = sortBySequence(
      ctx.tree.children(parentPath, kind.collection).filter((o) => o.path !== path && sameGroup(o, self)),
    );
    const op = query.operation ?? 'insert_top';
    let index: number;
    if (op === 'insert_top') index = 0;
    else if (op === 'insert_bottom') index = others.length;
    else {
      const anchor = others.findIndex((o) => o.path === query.anchor_path);
      if (anchor < 0) {
        throw new NsxApiError(
          'NSX_INVALID_PATH',
          `anchor_path ${String(query.anchor_path)} is not a sibling of ${path} (same parent${kind === securityPolicyKind ? ' and category' : ''})`,
        );
      }
      index = op === 'insert_after' ? anchor + 1 : anchor;
    }
    placeAt(ctx, self, others, index, user);
    ctx.store.commit('policy');
    return ctx.tree.render(self);
  });
}

/** `POST ...?action=revise&operation=...&anchor_path=` on security policies (within a category) and rules. */
export function registerReviseRoutes(app: FastifyInstance, ctx: SimContext): void {
  const base = `${POLICY_PREFIX}/infra/domains/:domainId/security-policies/:policyId`;
  app.post(base, { schema: { querystring: reviseQuery } }, async (req) => {
    const { domainId, policyId } = req.params as Record<string, string>;
    const parent = `/infra/domains/${domainId}`;
    ctx.tree.checkOwnership(`${parent}/security-policies/${policyId}`, req.nsxUser, false);
    return revise(
      ctx,
      securityPolicyKind,
      parent,
      policyId ?? '',
      (req.body ?? {}) as NsxObject,
      req.query as never,
      req.nsxUser,
      (a, b) => (a['category'] ?? '') === (b['category'] ?? ''),
    );
  });
  app.post(`${base}/rules/:ruleId`, { schema: { querystring: reviseQuery } }, async (req) => {
    const { domainId, policyId, ruleId } = req.params as Record<string, string>;
    const parent = `/infra/domains/${domainId}/security-policies/${policyId}`;
    return revise(
      ctx,
      ruleKind,
      parent,
      ruleId ?? '',
      (req.body ?? {}) as NsxObject,
      req.query as never,
      req.nsxUser,
      () => true,
    );
  });
}
