// Pod churn: rounds of Pods created and deleted on one Node until host-local hands out an IP a
// deleted Pod had (it allocates round-robin over the Node's podCIDR, so reuse comes once the range
// wraps: the lab suite gives Nodes a /28 for that). Every round's Pods are reached from a Pod that
// lives through the churn, reach it back, and no two live Pods share an IP.
import assert from 'node:assert/strict';
import { mapLimit } from '../framework/limit.js';
import type { PodRef } from '../framework/provider.js';
import {
  all,
  type CheckContext,
  type E2eCheck,
  port80,
  probeUntil,
  servingPod,
  withNamespace,
} from './check.js';

export interface ChurnOptions {
  podsPerRound: number;
  /** Give up (and fail) after this many Pods without an IP coming back. */
  maxPods: number;
  /** Pod creations and deletions in flight. */
  concurrency: number;
}

async function churn(ctx: CheckContext, o: ChurnOptions): Promise<void> {
  await withNamespace(ctx, 'e2e-churn', async (ns, p) => {
    const nodes = await p.listNodes!();
    const churnNode = nodes[0]!;
    const anchor = { namespace: ns, name: 'anchor' };
    await p.createPod(servingPod(ns, anchor.name, nodes[1] ?? churnNode));
    const anchorIP = (await p.podIPs(anchor))[0]!;
    const seen = new Map<string, string>(); // IP -> first Pod that had it
    let created = 0;
    for (let round = 1; ; round++) {
      const pods: PodRef[] = Array.from({ length: o.podsPerRound }, (_, i) => ({
        namespace: ns,
        name: `r${round}-p${i}`,
      }));
      const ips = await mapLimit(pods, o.concurrency, async (x) => {
        const { ips } = await p.createPod(servingPod(ns, x.name, churnNode));
        return ips[0]!;
      });
      created += pods.length;
      assert.equal(new Set([...ips, anchorIP]).size, ips.length + 1, `round ${round}: duplicate IPs ${ips}`);
      const targets = port80(...pods);
      assert.deepEqual(
        await probeUntil(p, anchor, targets, 'allow'),
        all(targets, 'allow'),
        `round ${round}`,
      );
      const back = port80(anchor);
      for (const x of [pods[0]!, pods[pods.length - 1]!])
        assert.deepEqual(await probeUntil(p, x, back, 'allow'), all(back, 'allow'), `${x.name} -> anchor`);
      const reused = ips.filter((ip) => seen.has(ip));
      for (const [i, ip] of ips.entries()) if (!seen.has(ip)) seen.set(ip, pods[i]!.name);
      await mapLimit(pods, o.concurrency, (x) => p.deletePod(x));
      if (reused.length > 0) {
        ctx.log(
          `round ${round}: ${reused.length} IP(s) reused after ${created} Pods (${reused.map((ip) => `${ip} of ${seen.get(ip)}`).join(', ')})`,
        );
        return;
      }
      assert.ok(created < o.maxPods, `no IP reused after ${created} Pods on ${churnNode}`);
    }
  });
}

/** The churn check with sizes for a provider (a /28 per Node wraps after 13 Pods, a /24 after 253). */
export function podChurnCheck(o: ChurnOptions): E2eCheck {
  return {
    suite: 'pod-churn',
    name: `Pods created and deleted in rounds of ${o.podsPerRound} until IPs are reused; connectivity holds every round`,
    needs: ['listNodes'],
    timeoutMs: 600_000,
    run: (ctx) => churn(ctx, o),
  };
}
