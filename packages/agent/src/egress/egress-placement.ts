import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import { choosePoolNode, poolSelectedNodes } from './egress-node-selection.js';
import type { EgressNodeInfo } from './egress-source.js';

/** Node annotation overriding the agents' `egress.maxEgressIPsPerNode` for that Node (Antrea's key). */
export const MAX_EGRESS_IPS_ANNOTATION = 'node.antrea.io/max-egress-ips';
/** The most Egress IPs one Node can hold: the SNAT marks are 8 bits, 0 meaning none. */
export const MAX_EGRESS_IPS_UPPER_BOUND = 255;

/**
 * The Node's own cap from its annotation: undefined when there is none or it is not an integer in
 * 0..255 (the agent default then applies, as in Antrea).
 */
export function maxEgressIpsOfNode(
  annotations: Readonly<Record<string, string>> | undefined,
): number | undefined {
  const text = annotations?.[MAX_EGRESS_IPS_ANNOTATION];
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text.trim());
  return n <= MAX_EGRESS_IPS_UPPER_BOUND ? n : undefined;
}

/** Where a pool Egress's IP lives, or why it lives nowhere. */
export type PoolPlacement =
  | { readonly egress: Egress; readonly ip: string; readonly node: string }
  | {
      readonly egress: Egress;
      readonly ip: string;
      readonly node: undefined;
      readonly why: 'noNode' | 'full';
    };

export interface PoolSchedulingInput {
  /** Egresses with an ExternalIPPool and an IPv4 egressIP; others are ignored. */
  readonly egresses: readonly Egress[];
  readonly pool: (name: string) => ExternalIPPool | undefined;
  /** The Ready Nodes. */
  readonly nodes: readonly EgressNodeInfo[];
  /** `egress.maxEgressIPsPerNode`: the cap of Nodes without the annotation. */
  readonly maxEgressIpsPerNode: number;
}

const createdAt = (e: Egress): number => {
  const t = e.metadata.creationTimestamp;
  return t === undefined ? 0 : new Date(t).getTime();
};

/** Oldest first, then by name (Antrea's order, so the oldest Egresses win when Nodes are full). */
function byCreation(a: Egress, b: Egress): number {
  const d = createdAt(a) - createdAt(b);
  if (d !== 0) return d;
  const an = a.metadata.name ?? '';
  const bn = b.metadata.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/**
 * Antrea's Egress IP scheduler (pkg/agent/controller/egress/ip_scheduler.go) over Node readiness:
 * Egresses in creation order, each on the Node its name hashes to among the Ready Nodes its pool's
 * nodeSelector selects that have room for its IP; a Node at its cap (annotation, else the agent
 * default) is left out of the ring, which is the same as walking past it. Two Egresses with the same
 * IP take one slot. Every agent computes the same result from the same API objects. An Egress whose
 * pool is missing is not placed at all; a nodeSelector that does not compile selects no Node.
 */
export function schedulePoolEgresses(input: PoolSchedulingInput): PoolPlacement[] {
  const ipsOn = new Map<string, Set<string>>();
  const cap = new Map(input.nodes.map((n) => [n.name, n.maxEgressIps ?? input.maxEgressIpsPerNode]));
  const out: PoolPlacement[] = [];
  for (const egress of [...input.egresses].sort(byCreation)) {
    const ip = egress.spec.egressIP;
    const poolName = egress.spec.externalIPPool;
    if (!ip || ip.includes(':') || !poolName) continue;
    const pool = input.pool(poolName);
    if (!pool) continue;
    const selected = poolSelectedNodes(pool, input.nodes);
    const roomy = selected.filter((n) => {
      const held = ipsOn.get(n.name);
      return (held?.size ?? 0) + (held?.has(ip) ? 0 : 1) <= (cap.get(n.name) ?? 0);
    });
    const node = choosePoolNode(
      egress.metadata.name ?? '',
      roomy.map((n) => n.name),
    );
    if (node === undefined) {
      out.push({ egress, ip, node, why: selected.length === 0 ? 'noNode' : 'full' });
      continue;
    }
    const held = ipsOn.get(node) ?? new Set<string>();
    held.add(ip);
    ipsOn.set(node, held);
    out.push({ egress, ip, node });
  }
  return out;
}
