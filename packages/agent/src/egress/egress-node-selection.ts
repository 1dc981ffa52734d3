import { createHash } from 'node:crypto';
import { compileSelector, type ExternalIPPool } from '@antrea-ts/apis';

// Which Node holds a pool IP (an Egress's or a LoadBalancer Service's). Antrea places them on a
// consistent hash ring of the live Nodes that the pool's nodeSelector selects (liveness from
// memberlist gossip between agents). We build the same kind of ring from the Nodes the API reports
// Ready: every agent sees the same Nodes, so every agent computes the same owner without talking to
// the others, and a Node leaving moves only the IPs it held.

/** The Nodes (of `nodes`, already the Ready ones) that a pool's nodeSelector selects; none when it does not compile. */
export function poolSelectedNodes<N extends { readonly labels: Readonly<Record<string, string>> }>(
  pool: ExternalIPPool,
  nodes: readonly N[],
): N[] {
  try {
    const selector = compileSelector(pool.spec.nodeSelector ?? {});
    return nodes.filter((n) => selector.matches(n.labels));
  } catch {
    return [];
  }
}

/** Virtual points per Node on the ring, so that Egresses spread evenly over few Nodes. */
const REPLICAS = 64;

function point(text: string): bigint {
  return createHash('sha256').update(text).digest().readBigUInt64BE(0);
}

/** The Node owning `key` among `nodes` (names), or undefined when there is none. */
export function choosePoolNode(key: string, nodes: readonly string[]): string | undefined {
  if (nodes.length === 0) return undefined;
  const target = point(key);
  let best: { node: string; at: bigint } | undefined;
  let lowest: { node: string; at: bigint } | undefined;
  for (const node of nodes) {
    for (let i = 0; i < REPLICAS; i++) {
      const at = point(`${node}#${i}`);
      // The first point clockwise from the key, wrapping to the lowest point of the ring.
      if (at >= target && (!best || at < best.at || (at === best.at && node < best.node)))
        best = { node, at };
      if (!lowest || at < lowest.at || (at === lowest.at && node < lowest.node)) lowest = { node, at };
    }
  }
  return (best ?? lowest)?.node;
}
