import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError } from '../errors.js';
import { registerPolicyCrud } from '../http/policy-crud.js';
import {
  containerClusterSpanKind,
  domainKind,
  groupKind,
  ruleKind,
  securityPolicyKind,
  serviceEntryKind,
  serviceKind,
} from '../policy/kinds.js';
import {
  containerClusterSpanBody,
  domainBody,
  groupBody,
  ruleBody,
  securityPolicyBody,
  serviceBody,
  serviceEntryBody,
} from '../policy/schemas.js';

/** Domains, groups, services (+entries), security policies (+rules, +container-cluster-span). */
export function registerPolicyInfraRoutes(app: FastifyInstance, ctx: SimContext): void {
  const domain = (p: Record<string, string>) => `/infra/domains/${p['domainId']}`;
  const policy = (p: Record<string, string>) => `${domain(p)}/security-policies/${p['policyId']}`;

  registerPolicyCrud(app, ctx, {
    kind: domainKind,
    collectionUrl: '/infra/domains',
    idParam: 'domainId',
    parentPath: () => '/infra',
    bodySchema: domainBody,
    delete: (_req, path) => {
      if (path === '/infra/domains/default') {
        throw new NsxApiError('NSX_INVALID_OBJECT', 'The default domain cannot be deleted.');
      }
      ctx.tree.delete(path);
    },
  });
  registerPolicyCrud(app, ctx, {
    kind: groupKind,
    collectionUrl: '/infra/domains/:domainId/groups',
    idParam: 'groupId',
    parentPath: domain,
    bodySchema: groupBody,
    extraListQuery: { group_type: { type: 'string' } },
    listFilter: (o, q) =>
      typeof q['group_type'] !== 'string' ||
      (Array.isArray(o['group_type']) && (o['group_type'] as string[]).includes(q['group_type'] as string)),
  });
  registerPolicyCrud(app, ctx, {
    kind: serviceKind,
    collectionUrl: '/infra/services',
    idParam: 'serviceId',
    parentPath: () => '/infra',
    bodySchema: serviceBody,
  });
  registerPolicyCrud(app, ctx, {
    kind: serviceEntryKind,
    collectionUrl: '/infra/services/:serviceId/service-entries',
    idParam: 'entryId',
    parentPath: (p) => `/infra/services/${p['serviceId']}`,
    bodySchema: serviceEntryBody,
  });
  registerPolicyCrud(app, ctx, {
    kind: securityPolicyKind,
    collectionUrl: '/infra/domains/:domainId/security-policies',
    idParam: 'policyId',
    parentPath: domain,
    bodySchema: securityPolicyBody,
    extraListQuery: { include_rule_count: { type: 'boolean' } },
  });
  registerPolicyCrud(app, ctx, {
    kind: ruleKind,
    collectionUrl: '/infra/domains/:domainId/security-policies/:policyId/rules',
    idParam: 'ruleId',
    parentPath: policy,
    bodySchema: ruleBody,
  });
  registerPolicyCrud(app, ctx, {
    kind: containerClusterSpanKind,
    collectionUrl: '/infra/domains/:domainId/security-policies/:policyId/container-cluster-span',
    idParam: 'spanId',
    parentPath: policy,
    bodySchema: containerClusterSpanBody,
  });
}
