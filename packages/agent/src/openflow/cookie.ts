/**
 * Flow cookies (Antrea pkg/agent/openflow/cookie): the top 16 bits carry the agent's round number
 * (incremented on every agent start and kept in br-int's external_ids), the next 8 bits the
 * category (feature) that owns the flow, the low 40 bits are free for the owner (e.g. a rule id).
 * After a restart the agent re-installs its flows with the new round and then deletes whatever still
 * carries an older round: flows of Pods or Nodes that went away while it was down.
 */

export const ROUND_SHIFT = 48n;
export const CATEGORY_SHIFT = 40n;
export const ROUND_MASK = 0xffffn << ROUND_SHIFT;
export const CATEGORY_MASK = 0xffn << CATEGORY_SHIFT;

export const CookieCategory = {
  Default: 0,
  PodConnectivity: 1,
  NetworkPolicy: 2,
  Service: 3,
  Egress: 4,
  Multicast: 5,
  Traceflow: 6,
} as const;
export type CookieCategory = (typeof CookieCategory)[keyof typeof CookieCategory];

export class CookieAllocator {
  constructor(readonly round: number) {}

  cookie(category: CookieCategory, id = 0n): bigint {
    return (BigInt(this.round & 0xffff) << ROUND_SHIFT) | (BigInt(category) << CATEGORY_SHIFT) | id;
  }

  /** Value and mask that select every flow of this round (for deleting older rounds by exclusion). */
  roundMatch(round = this.round): { cookie: bigint; cookieMask: bigint } {
    return { cookie: BigInt(round & 0xffff) << ROUND_SHIFT, cookieMask: ROUND_MASK };
  }
}

export function roundOf(cookie: bigint): number {
  return Number((cookie & ROUND_MASK) >> ROUND_SHIFT);
}

export function categoryOf(cookie: bigint): number {
  return Number((cookie & CATEGORY_MASK) >> CATEGORY_SHIFT);
}
