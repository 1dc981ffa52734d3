import { OfDecodeError, OfEncodeError } from '../errors.js';
import type { Reader, Writer } from './buffer.js';
import { allOnes, getField, lookupField } from './fields.js';
import { decodeOxmField, encodeOxmField } from './match.js';

/**
 * Group properties of OpenFlow 1.5 group mods and group descriptions. The only one OVS knows is
 * Netronome's selection-method experimenter property (OVS Documentation/
 * group-selection-method-property.txt): how a select group picks its bucket.
 */

/** OFPGPT15_EXPERIMENTER. */
const OFPGPT_EXPERIMENTER = 0xffff;
export const NTR_VENDOR_ID = 0x0000154d;
/** Older OVS releases used this id; OVS still accepts it. */
const NTR_COMPAT_VENDOR_ID = 0x00001540;
const NTRT_SELECTION_METHOD = 1;
/** NTR_MAX_SELECTION_METHOD_LEN: the method name is NUL-terminated within 16 bytes. */
const METHOD_LEN = 16;
/** type, length, experimenter, exp_type, pad, method[16], param: the fixed part. */
const FIXED_LEN = 40;

/** A field fed to the `hash` method, whole or masked (`mask` undefined: all of it). */
export interface SelectionField {
  field: string;
  mask?: bigint;
}

/**
 * `hash` hashes `fields` in ovs-vswitchd's slow path (each distinct hash input gets its own
 * megaflow); `dp_hash` hashes in the datapath (param's high 32 bits pick the algorithm, the low
 * 32 the basis). Without a method OVS picks dp_hash with its symmetric L4 algorithm.
 */
export interface SelectionMethod {
  method: 'hash' | 'dp_hash';
  /** selection_method_param; 0 when undefined. */
  param?: bigint;
  /** Only with `hash`. OVS keeps and reports them in its own field order (meta-flow ids). */
  fields?: SelectionField[];
}

/** Appends the selection-method property (padded to 8 bytes, the length excluding the padding). */
export function encodeSelectionMethod(w: Writer, sm: SelectionMethod): void {
  if (sm.method !== 'hash' && sm.fields?.length)
    throw new OfEncodeError(`selection method ${sm.method} takes no fields`);
  const start = w.length;
  w.u16(OFPGPT_EXPERIMENTER).u16(0).u32(NTR_VENDOR_ID).u32(NTRT_SELECTION_METHOD).zeros(4);
  const name = Buffer.alloc(METHOD_LEN);
  name.write(sm.method, 'ascii');
  w.bytes(name).u64(sm.param ?? 0n);
  for (const f of sm.fields ?? []) {
    // Each field is an OXM TLV without the has-mask bit whose value is the mask to hash with.
    encodeOxmField(w, { field: f.field, value: f.mask ?? allOnes(getField(f.field).bytes) });
  }
  w.setU16(start + 2, w.length - start);
  w.padTo(8, start);
}

/**
 * Reads a group's property list (what follows its buckets) and returns its selection method, if
 * any. Properties OVS does not define are skipped, as OVS's own parser would refuse them.
 */
export function decodeGroupProperties(r: Reader): SelectionMethod | undefined {
  let selection: SelectionMethod | undefined;
  while (r.remaining >= 4) {
    const type = r.u16();
    const len = r.u16();
    if (len < 4 || len - 4 > r.remaining) throw new OfDecodeError(`bad group property length ${len}`);
    const body = r.sub(len - 4, 'group property');
    r.skip(Math.min(r.remaining, (8 - (len % 8)) % 8));
    if (type !== OFPGPT_EXPERIMENTER || body.remaining < 8) continue;
    const vendor = body.u32();
    const expType = body.u32();
    if ((vendor === NTR_VENDOR_ID || vendor === NTR_COMPAT_VENDOR_ID) && expType === NTRT_SELECTION_METHOD)
      selection = decodeSelectionMethod(body, len);
  }
  return selection;
}

function decodeSelectionMethod(body: Reader, len: number): SelectionMethod {
  if (len < FIXED_LEN) throw new OfDecodeError(`selection method property too short (${len})`);
  body.skip(4);
  const raw = body.bytes(METHOD_LEN, 'selection method');
  const nul = raw.indexOf(0);
  if (nul < 0) throw new OfDecodeError('selection method name is not NUL-terminated');
  const method = raw.subarray(0, nul).toString('ascii');
  if (method !== 'hash' && method !== 'dp_hash')
    throw new OfDecodeError(`unknown selection method "${method}"`);
  const param = body.u64();
  const fields: SelectionField[] = [];
  while (body.remaining > 0) {
    const tlv = decodeOxmField(body);
    const def = lookupField(tlv.field);
    const full = def !== undefined && tlv.value === allOnes(def.bytes);
    fields.push(full ? { field: tlv.field } : { field: tlv.field, mask: tlv.value });
  }
  return {
    method,
    ...(param !== 0n ? { param } : {}),
    ...(fields.length > 0 ? { fields } : {}),
  };
}
