import type { Reader, Writer } from './buffer.js';
import { type FieldDef } from './fields.js';
/** One match criterion. `mask` is absent for an exact match; set bits in `mask` are matched. */
export interface MatchField {
  field: string;
  value: bigint;
  mask?: bigint;
}
/** A normalized match: canonical field names, value&mask applied, registry order. */
export type Match = MatchField[];
export type MatchScalar = number | bigint | string;
export type MatchValue =
  | MatchScalar
  | {
      value: MatchScalar;
      mask: MatchScalar;
    }
  | true;
/** Convenience input: `{ ip: true, nw_src: '10.0.0.0/24', reg1: 3, ct_state: '+trk+new' }`. */
export type MatchSpec = Record<string, MatchValue>;
/** Protocol shorthands of ovs-ofctl and the fields they stand for. */
export declare const PROTOCOL_SHORTHANDS: Record<string, ReadonlyArray<readonly [string, number]>>;
/** Parses the textual value of `f` (`10.0.0.0/24`, `0x3/0xf`, `+trk-inv`, `LOCAL`, …). */
export declare function parseFieldValue(
  f: FieldDef,
  text: string,
): {
  value: bigint;
  mask?: bigint;
};
/** Normalizes one criterion: drops full masks, clears value bits outside the mask, checks widths. */
export declare function normalizeField(f: FieldDef, value: bigint, mask?: bigint): MatchField;
export declare function sortMatch(m: Match): Match;
/**
 * Canonical register form: xxregN and xregN criteria become the 32-bit regN criteria OVS keeps
 * internally, so a match built from xxreg3 compares equal to the reg12..reg15 that a dump returns.
 */
export declare function splitRegisters(m: Match): Match;
/** Builds a normalized Match from a convenience spec. */
export declare function buildMatch(spec: MatchSpec): Match;
/** Writes one OXM TLV (header, value, optional mask). */
export declare function encodeOxmField(w: Writer, mf: MatchField): void;
/** Writes a struct ofp_match (type OFPMT_OXM) padded to 8 bytes; returns bytes written. */
export declare function encodeMatch(w: Writer, match: Match): number;
/** Reads one OXM TLV. Unknown fields decode as `oxm:<class>:<field>` so nothing is silently lost. */
export declare function decodeOxmField(r: Reader): MatchField;
/** Reads a struct ofp_match including its trailing padding. */
export declare function decodeMatch(r: Reader): Match;
/** Reads consecutive OXM TLVs until the reader is exhausted (NXPINT_METADATA, etc.). */
export declare function decodeOxmList(r: Reader): Match;
export declare function matchGet(m: Match, field: string): MatchField | undefined;
//# sourceMappingURL=match.d.ts.map
