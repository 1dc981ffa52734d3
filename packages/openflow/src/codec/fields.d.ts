/**
 * Registry of the match/set-field fields this client speaks, with their OXM/NXM class and field
 * numbers (lib/meta-flow.h, ovs-fields(7)). Field values are carried as unsigned bigints of the
 * field's byte width, so one representation covers 8-bit protocol numbers and 128-bit labels.
 */
export type FieldKind =
  | 'port'
  | 'mac'
  | 'ipv4'
  | 'ipv6'
  | 'hex'
  | 'dec'
  | 'dec16'
  | 'ethtype'
  | 'vlan'
  | 'ct_state'
  | 'tcp_flags'
  | 'label'
  | 'dscp';
export interface FieldDef {
  readonly name: string;
  readonly oxmClass: number;
  readonly oxmField: number;
  readonly bytes: number;
  readonly maskable: boolean;
  readonly kind: FieldKind;
  /** Name used by ovs-ofctl for sub-field references (`move`, `learn`), e.g. NXM_NX_REG0. */
  readonly nxmName: string;
}
export declare const OXM_CLASS: {
  readonly NXM_0: 0;
  readonly NXM_1: 1;
  readonly OPENFLOW_BASIC: 32768;
  readonly PKT_REG: 32769;
};
export type FieldName = string;
export declare function allFields(): readonly FieldDef[];
export declare function lookupField(name: string): FieldDef | undefined;
export declare function getField(name: string): FieldDef;
export declare function fieldByHeader(oxmClass: number, oxmField: number): FieldDef | undefined;
/** OXM/NXM 32-bit header for `f`, with or without the has-mask bit. */
export declare function oxmHeader(f: FieldDef, hasMask: boolean): number;
/**
 * Header OVS puts in sub-field references. `legacy` (NX actions: learn, ct zone, output_reg)
 * prefers the NXM header; otherwise (OpenFlow 1.5 copy_field) the OXM header is used.
 * in_port is referenced as the 16-bit NXM_OF_IN_PORT either way.
 */
export declare function refHeader(f: FieldDef, legacy: boolean): number;
export declare function fieldBits(f: FieldDef): number;
export declare function allOnes(bytes: number): bigint;
export declare const PORT_NAMES: Record<number, string>;
export declare function formatPort(p: number): string;
export declare function parsePort(s: string): number;
export declare function macToBigint(s: string): bigint;
export declare function formatMac(v: bigint): string;
export declare function ipv4ToBigint(s: string): bigint;
export declare function formatIpv4(v: bigint): string;
export declare function ipv6ToBigint(s: string): bigint;
/** RFC 5952 text (lowercase, longest zero run of 2+ groups compressed), as inet_ntop prints it. */
export declare function formatIpv6(v: bigint): string;
/** Number of leading one bits if `mask` is a CIDR mask of `bits` width, else -1. */
export declare function cidrBits(mask: bigint, bits: number): number;
export declare function prefixMask(prefix: number, bits: number): bigint;
/** Parses an integer in C syntax (decimal or 0x-hex), as a bigint. */
export declare function parseIntText(s: string): bigint;
/** C `%#x`: `0` for zero, `0x…` otherwise. */
export declare function hexAlt(v: bigint | number): string;
export declare const CT_STATE_BITS: ReadonlyArray<readonly [string, number]>;
export declare const TCP_FLAG_BITS: ReadonlyArray<readonly [string, number]>;
/** Parses "+trk+new-inv" style flag text into value/mask. */
export declare function parseFlags(
  s: string,
  bits: ReadonlyArray<readonly [string, number]>,
): {
  value: bigint;
  mask: bigint;
};
/** Formats flags like OVS format_flags_masked: `+a-b` in bit order; `a|b` when fully masked. */
export declare function formatFlags(
  value: bigint,
  mask: bigint,
  maxMask: bigint,
  bits: ReadonlyArray<readonly [string, number]>,
): string;
//# sourceMappingURL=fields.d.ts.map
