import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { clusterFeedJson, requireCluster } from '../policy/clusters.js';
import { RPC_PREFIX } from './rpc-prefix.js';

export const MAX_FEED_WAIT_MS = 60_000;

/**
 * The CCP "feed" (stand-in for nestdb messages): everything the CCP adapter must realize for one cluster.
 * Long-poll with `after_generation`: the answer comes when the policy generation exceeds it, or after
 * `timeout_ms` with the unchanged feed.
 */
export function registerPolicyFeedRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get(
    `${RPC_PREFIX}/policy-feed`,
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            after_generation: { type: 'integer', minimum: 0 },
            timeout_ms: { type: 'integer', minimum: 0, maximum: MAX_FEED_WAIT_MS },
          },
        },
      },
    },
    async (req, reply) => {
      const { clusterId } = req.params as { clusterId: string };
      requireCluster(ctx, clusterId);
      const q = req.query as { after_generation?: number; timeout_ms?: number };
      if (q.after_generation !== undefined) {
        const after = q.after_generation;
        const ac = new AbortController();
        const onClose = () => ac.abort();
        reply.raw.once('close', onClose);
        try {
          await ctx.store.waitFor(
            () => ctx.store.policyGeneration > after,
            q.timeout_ms ?? 30_000,
            ac.signal,
          );
        } finally {
          reply.raw.off('close', onClose);
        }
      }
      // The cluster may have been deleted while waiting.
      const feed = clusterFeedJson(ctx, requireCluster(ctx, clusterId));
      return reply.type('application/json; charset=utf-8').send(feed);
    },
  );
}
