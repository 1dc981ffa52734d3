/**
 * A port range as value/mask pairs (Antrea's BitRange): OVS matches transport ports with a bit
 * mask, so [lo, hi] becomes the fewest aligned power-of-two blocks, at most 2 * 16 of them.
 */
export interface MaskedPort {
  readonly value: number;
  readonly mask: number;
}

export function portRangeMasks(lo: number, hi: number): MaskedPort[] {
  const out: MaskedPort[] = [];
  let s = lo;
  while (s <= hi) {
    let size = 1;
    while (size < 0x10000 && s % (size * 2) === 0 && s + size * 2 - 1 <= hi) size *= 2;
    out.push({ value: s, mask: (0xffff - (size - 1)) & 0xffff });
    s += size;
  }
  return out;
}
