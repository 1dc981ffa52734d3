import { ipNetContains, parseCIDR } from '@antrea-ts/apis';
import type { CrdIPBlock } from '../inputs.js';

/** validateIPBlock: a parsable cidr and excepts that are strict subsets of it. */
export function ipBlockError(ipb: CrdIPBlock): string | undefined {
  if (!ipb.cidr) return "field 'cidr' is required in an ipBlock";
  const cidr = parseCIDR(ipb.cidr);
  if (!cidr) return `invalid CIDR address: ${ipb.cidr}`;
  for (const e of ipb.except ?? []) {
    const ex = parseCIDR(e);
    if (!ex) return `invalid except CIDR value: invalid CIDR address: ${e}`;
    if (!ipNetContains(cidr, ex) || ex.prefixLength <= cidr.prefixLength)
      return `except CIDR ${e} is not a strict subset of CIDR ${ipb.cidr}`;
  }
  return undefined;
}
