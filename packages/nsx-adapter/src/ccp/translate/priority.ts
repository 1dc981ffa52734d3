/**
 * NSX security policy sequence numbers -> ACNP priorities.
 *
 * NSX orders policies inside a category by `sequence_number` (0..999,999); ties are ordered
 * arbitrarily by NSX. Antrea orders ACNPs inside a Tier by the float `priority` (1..10,000, lower
 * first). The mapping is
 *
 *     priority = 1 + sequence_number / 1000 + tieRank / 10^7
 *
 * where `tieRank` is the position of the policy among policies of the same category with the same
 * sequence number, ordered by NSX id (0 when the number is unique). Properties:
 * - order preserving: a larger sequence number always gives a larger priority (the tie term stays
 *   below 1/1000 for up to 10,000 ties);
 * - stable: a policy's priority depends only on its own sequence number (and its tie group), so
 *   inserting or moving one policy does not rewrite the others;
 * - inside Antrea's range: 1 <= priority < 1001.
 * The real adapter scales NSX's internal sequence numbers into (1, 2) (research notes §3); the exact
 * formula is not public, so this one is ours.
 */
export const SEQUENCE_SCALE = 1000;
export const TIE_SCALE = 1e7;
export const MAX_SEQUENCE_NUMBER = 999_999;

export function policyPriority(sequenceNumber: number, tieRank: number): number {
  const seq = Math.min(Math.max(Math.trunc(sequenceNumber), 0), MAX_SEQUENCE_NUMBER);
  // Rounded to 10 decimals so the value survives JSON round trips unchanged.
  return Math.round((1 + seq / SEQUENCE_SCALE + tieRank / TIE_SCALE) * 1e10) / 1e10;
}

/** Ties ranked by id; returns id -> tieRank for policies of one category. */
export function tieRanks(policies: readonly { id: string; sequence_number?: number }[]): Map<string, number> {
  const bySeq = new Map<number, string[]>();
  for (const p of policies) {
    const s = p.sequence_number ?? 0;
    const list = bySeq.get(s) ?? [];
    list.push(p.id);
    bySeq.set(s, list);
  }
  const out = new Map<string, number>();
  for (const ids of bySeq.values()) {
    ids.sort();
    ids.forEach((id, i) => {
      out.set(id, i);
    });
  }
  return out;
}
