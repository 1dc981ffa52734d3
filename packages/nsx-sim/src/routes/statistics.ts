import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { POLICY_PREFIX } from '../http/policy-crud.js';
import { requireCluster, spannedPolicies } from '../policy/clusters.js';
import { CCP_COLLECTION, ENFORCEMENT_POINT_PATH } from '../policy/kinds.js';
import { sortBySequence } from '../policy/policy-tree.js';
import type { NsxObject, PolicyObject, RuleCounters } from '../state/types.js';
import { RPC_PREFIX } from './rpc-prefix.js';

const counter = { type: 'integer', minimum: 0 };
const reportBody = {
  type: 'object',
  required: ['rule_statistics'],
  properties: {
    rule_statistics: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          rule_id: { type: 'integer' },
          rule_path: { type: 'string' },
          packet_count: counter,
          byte_count: counter,
          session_count: counter,
          hit_count: counter,
        },
        anyOf: [{ required: ['rule_id'] }, { required: ['rule_path'] }],
      },
    },
  },
};

const statsQuery = {
  type: 'object',
  properties: { container_cluster_path: { type: 'string' }, enforcement_point_path: { type: 'string' } },
};

function ruleStatistics(rule: PolicyObject, c: RuleCounters | undefined): NsxObject {
  return {
    resource_type: 'RuleStatistics',
    rule: rule.path,
    internal_rule_id: String(rule['rule_id']),
    packet_count: c?.packet_count ?? 0,
    byte_count: c?.byte_count ?? 0,
    session_count: c?.session_count ?? 0,
    hit_count: c?.hit_count ?? 0,
    popularity_index: 0,
    max_popularity_index: 0,
    max_session_count: 0,
    total_session_count: c?.session_count ?? 0,
    l7_accept_count: 0,
    l7_reject_count: 0,
    l7_reject_with_response_count: 0,
  };
}

/**
 * Per-cluster rule statistics: the MP adapter pushes absolute counters on /rpc (by NSX rule_id, the
 * ACNP rule name, or by rule path); NSX-shaped reads under security-policies/.../statistics.
 */
export function registerStatisticsRoutes(app: FastifyInstance, ctx: SimContext): void {
  const stats = () => ctx.store.state.statistics;

  /** Clusters that have stats for a policy: spanned ones plus any that reported. */
  const clustersFor = (policy: PolicyObject, filter: string | undefined): PolicyObject[] => {
    const all = ctx.tree.children(ENFORCEMENT_POINT_PATH, CCP_COLLECTION);
    const rules = ctx.tree.children(policy.path, 'rules').map((r) => r.path);
    return all.filter((ccp) => {
      if (filter && ccp.path !== filter) return false;
      const reported = rules.some((r) => stats()[ccp.id]?.[r] !== undefined);
      return reported || spannedPolicies(ctx, ccp).includes(policy);
    });
  };
  const epPath = ENFORCEMENT_POINT_PATH;

  app.get(
    `${POLICY_PREFIX}/infra/domains/:domainId/security-policies/:policyId/statistics`,
    { schema: { querystring: statsQuery } },
    async (req) => {
      const { domainId, policyId } = req.params as Record<string, string>;
      const policy = ctx.tree.require(`/infra/domains/${domainId}/security-policies/${policyId}`);
      const rules = sortBySequence(ctx.tree.children(policy.path, 'rules'));
      const filter = (req.query as { container_cluster_path?: string }).container_cluster_path;
      const results = clustersFor(policy, filter).map((ccp) => ({
        container_cluster_path: ccp.path,
        enforcement_point: epPath,
        statistics: {
          resource_type: 'SecurityPolicyStatistics',
          internal_section_id: policy['unique_id'],
          result_count: rules.length,
          results: rules.map((r) => ruleStatistics(r, stats()[ccp.id]?.[r.path])),
        },
      }));
      return { results, result_count: results.length };
    },
  );
  app.get(
    `${POLICY_PREFIX}/infra/domains/:domainId/security-policies/:policyId/rules/:ruleId/statistics`,
    { schema: { querystring: statsQuery } },
    async (req) => {
      const { domainId, policyId, ruleId } = req.params as Record<string, string>;
      const policy = ctx.tree.require(`/infra/domains/${domainId}/security-policies/${policyId}`);
      const rule = ctx.tree.require(`${policy.path}/rules/${ruleId}`);
      const filter = (req.query as { container_cluster_path?: string }).container_cluster_path;
      const results = clustersFor(policy, filter).map((ccp) => ({
        container_cluster_path: ccp.path,
        enforcement_point: epPath,
        statistics: ruleStatistics(rule, stats()[ccp.id]?.[rule.path]),
      }));
      return { results, result_count: results.length };
    },
  );

  app.post(`${RPC_PREFIX}/statistics`, { schema: { body: reportBody } }, async (req) => {
    const ccp = requireCluster(ctx, (req.params as { clusterId: string }).clusterId);
    const byRuleId = new Map<number, string>();
    for (const o of ctx.tree.all())
      if (o.resource_type === 'Rule') byRuleId.set(Number(o['rule_id']), o.path);
    const ignored: NsxObject[] = [];
    let accepted = 0;
    stats()[ccp.id] ??= {};
    const mine = stats()[ccp.id] ?? {};
    for (const s of (req.body as { rule_statistics: NsxObject[] }).rule_statistics) {
      const path = typeof s['rule_path'] === 'string' ? s['rule_path'] : byRuleId.get(Number(s['rule_id']));
      if (!path || ctx.tree.get(path)?.resource_type !== 'Rule') {
        ignored.push({ rule_id: s['rule_id'], rule_path: s['rule_path'], reason: 'no such rule' });
        continue;
      }
      mine[path] = {
        packet_count: Number(s['packet_count'] ?? 0),
        byte_count: Number(s['byte_count'] ?? 0),
        session_count: Number(s['session_count'] ?? 0),
        hit_count: Number(s['hit_count'] ?? s['packet_count'] ?? 0),
      };
      accepted += 1;
    }
    ctx.store.commit('statistics');
    return { accepted, ignored };
  });
}
