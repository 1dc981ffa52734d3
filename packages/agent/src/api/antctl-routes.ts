// The agent endpoints antctl's agent mode reads besides podinterfaces, ovsflows and agentinfo
// (Antrea pkg/agent/apiserver/handlers): the NetworkPolicies and groups this agent received,
// the FQDN cache of its FQDN policies, its feature gates, and its log verbosity.
import { plainJson } from '@antrea-ts/apis';
import type { FastifyInstance } from 'fastify';
import type { NetworkPolicyController } from '../networkpolicy/network-policy-controller.js';
import type { FeatureGateInfo } from './feature-gates.js';
import { registerFqdnCacheRoute } from './fqdncache-route.js';
import type { LogLevelControl } from './log-level.js';
import { type PolicyFilter, queryPolicies, UnknownPolicyTypeError } from './policy-query.js';

export interface AntctlApiSource {
  /** None when the agent has no controller connection (enforces no policies). */
  policy(): NetworkPolicyController | undefined;
  featureGates(): FeatureGateInfo[];
  readonly logLevel: LogLevelControl;
}

type GroupKind = 'appliedtogroups' | 'addressgroups';

export function registerAntctlRoutes(app: FastifyInstance, src: AntctlApiSource): void {
  app.get<{ Querystring: PolicyFilter }>('/networkpolicies', async (req, reply) => {
    const policy = src.policy();
    const { name } = req.query;
    let list: ReturnType<typeof queryPolicies> = [];
    try {
      list = policy ? queryPolicies(policy, req.query) : [];
    } catch (err) {
      if (err instanceof UnknownPolicyTypeError) return reply.code(400).send({ error: err.message });
      throw err;
    }
    if (name) {
      const found = list[0];
      if (!found) return reply.code(404).send({ error: `networkpolicy ${name} not found` });
      return plainJson(found);
    }
    return plainJson(list);
  });

  for (const kind of ['appliedtogroups', 'addressgroups'] as const satisfies readonly GroupKind[]) {
    const singular = kind === 'appliedtogroups' ? 'appliedtogroup' : 'addressgroup';
    app.get<{ Querystring: { name?: string } }>(`/${kind}`, async (req, reply) => {
      const groups = (src.policy()?.cache.groupList(kind) ?? []).map((g) => ({
        metadata: { name: g.name },
        groupMembers: g.members,
      }));
      const { name } = req.query;
      if (name) {
        const found = groups.find((g) => g.metadata.name === name);
        if (!found) return reply.code(404).send({ error: `${singular} ${name} not found` });
        return plainJson(found);
      }
      return plainJson(groups);
    });
  }

  registerFqdnCacheRoute(app, () => src.policy()?.fqdnCache);

  app.get('/featuregates', async () => src.featureGates());

  // GET shows the verbosity; GET ?level=N sets it first (Antrea's loglevel handler, as antctl calls it).
  app.get<{ Querystring: { level?: string } }>('/loglevel', async (req, reply) => {
    const { level } = req.query;
    if (level !== undefined && level !== '') {
      if (!/^\d+$/.test(level)) return reply.code(400).send({ error: `invalid log level ${level}` });
      src.logLevel.set(Number(level));
    }
    return src.logLevel.level;
  });
}
