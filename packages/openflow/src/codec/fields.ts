import { OfEncodeError, OfParseError } from '../errors.js';

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

export const OXM_CLASS = { NXM_0: 0x0000, NXM_1: 0x0001, OPENFLOW_BASIC: 0x8000, PKT_REG: 0x8001 } as const;

const defs: FieldDef[] = [];
function def(
  name: string,
  oxmClass: number,
  oxmField: number,
  bytes: number,
  maskable: boolean,
  kind: FieldKind,
  nxmName: string,
): void {
  defs.push({ name, oxmClass, oxmField, bytes, maskable, kind, nxmName });
}

const B = OXM_CLASS.OPENFLOW_BASIC;
const N0 = OXM_CLASS.NXM_0;
const N1 = OXM_CLASS.NXM_1;

// Standard OXM fields (OpenFlow 1.5 "basic" class).
def('in_port', B, 0, 4, false, 'port', 'NXM_OF_IN_PORT');
def('metadata', B, 2, 8, true, 'hex', 'metadata');
def('eth_dst', B, 3, 6, true, 'mac', 'NXM_OF_ETH_DST');
def('eth_src', B, 4, 6, true, 'mac', 'NXM_OF_ETH_SRC');
def('eth_type', B, 5, 2, false, 'ethtype', 'NXM_OF_ETH_TYPE');
def('vlan_vid', B, 6, 2, true, 'vlan', 'vlan_vid');
def('ip_dscp', B, 8, 1, false, 'dscp', 'ip_dscp');
def('ip_proto', B, 10, 1, false, 'dec', 'NXM_OF_IP_PROTO');
def('nw_src', B, 11, 4, true, 'ipv4', 'NXM_OF_IP_SRC');
def('nw_dst', B, 12, 4, true, 'ipv4', 'NXM_OF_IP_DST');
def('tcp_src', B, 13, 2, true, 'dec16', 'NXM_OF_TCP_SRC');
def('tcp_dst', B, 14, 2, true, 'dec16', 'NXM_OF_TCP_DST');
def('udp_src', B, 15, 2, true, 'dec16', 'NXM_OF_UDP_SRC');
def('udp_dst', B, 16, 2, true, 'dec16', 'NXM_OF_UDP_DST');
def('sctp_src', B, 17, 2, true, 'dec16', 'sctp_src');
def('sctp_dst', B, 18, 2, true, 'dec16', 'sctp_dst');
def('icmp_type', B, 19, 1, false, 'dec', 'NXM_OF_ICMP_TYPE');
def('icmp_code', B, 20, 1, false, 'dec', 'NXM_OF_ICMP_CODE');
def('arp_op', B, 21, 2, false, 'dec', 'NXM_OF_ARP_OP');
def('arp_spa', B, 22, 4, true, 'ipv4', 'NXM_OF_ARP_SPA');
def('arp_tpa', B, 23, 4, true, 'ipv4', 'NXM_OF_ARP_TPA');
def('arp_sha', B, 24, 6, true, 'mac', 'NXM_NX_ARP_SHA');
def('arp_tha', B, 25, 6, true, 'mac', 'NXM_NX_ARP_THA');
def('ipv6_src', B, 26, 16, true, 'ipv6', 'NXM_NX_IPV6_SRC');
def('ipv6_dst', B, 27, 16, true, 'ipv6', 'NXM_NX_IPV6_DST');
def('icmpv6_type', B, 29, 1, false, 'dec', 'NXM_NX_ICMPV6_TYPE');
def('icmpv6_code', B, 30, 1, false, 'dec', 'NXM_NX_ICMPV6_CODE');
def('nd_target', B, 31, 16, true, 'ipv6', 'NXM_NX_ND_TARGET');
def('nd_sll', B, 32, 6, true, 'mac', 'NXM_NX_ND_SLL');
def('nd_tll', B, 33, 6, true, 'mac', 'NXM_NX_ND_TLL');
def('tun_id', B, 38, 8, true, 'hex', 'NXM_NX_TUN_ID');
def('tcp_flags', B, 42, 2, true, 'tcp_flags', 'NXM_NX_TCP_FLAGS');

// Nicira extension fields (NXM class 1).
for (let i = 0; i < 16; i++) def(`reg${i}`, N1, i, 4, true, 'hex', `NXM_NX_REG${i}`);
def('tun_src', N1, 31, 4, true, 'ipv4', 'NXM_NX_TUN_IPV4_SRC');
def('tun_dst', N1, 32, 4, true, 'ipv4', 'NXM_NX_TUN_IPV4_DST');
def('tun_ipv6_src', N1, 109, 16, true, 'ipv6', 'NXM_NX_TUN_IPV6_SRC');
def('tun_ipv6_dst', N1, 110, 16, true, 'ipv6', 'NXM_NX_TUN_IPV6_DST');
def('nw_ttl', N1, 29, 1, false, 'dec', 'NXM_NX_IP_TTL');
def('pkt_mark', N1, 33, 4, true, 'hex', 'NXM_NX_PKT_MARK');
def('conj_id', N1, 37, 4, false, 'dec', 'NXM_NX_CONJ_ID');
def('ct_state', N1, 105, 4, true, 'ct_state', 'NXM_NX_CT_STATE');
def('ct_zone', N1, 106, 2, false, 'dec16', 'NXM_NX_CT_ZONE');
def('ct_mark', N1, 107, 4, true, 'hex', 'NXM_NX_CT_MARK');
def('ct_label', N1, 108, 16, true, 'label', 'NXM_NX_CT_LABEL');
for (let i = 0; i < 4; i++) def(`xxreg${i}`, N1, 111 + i, 16, true, 'label', `NXM_NX_XXREG${i}`);
def('ct_nw_proto', N1, 119, 1, false, 'dec', 'NXM_NX_CT_NW_PROTO');
def('ct_nw_src', N1, 120, 4, true, 'ipv4', 'NXM_NX_CT_NW_SRC');
def('ct_nw_dst', N1, 121, 4, true, 'ipv4', 'NXM_NX_CT_NW_DST');
def('ct_ipv6_src', N1, 122, 16, true, 'ipv6', 'NXM_NX_CT_IPV6_SRC');
def('ct_ipv6_dst', N1, 123, 16, true, 'ipv6', 'NXM_NX_CT_IPV6_DST');
def('ct_tp_src', N1, 124, 2, true, 'dec16', 'NXM_NX_CT_TP_SRC');
def('ct_tp_dst', N1, 125, 2, true, 'dec16', 'NXM_NX_CT_TP_DST');

// OpenFlow 1.5 packet registers: OVS sends register matches as these 64-bit pairs
// (xregN = reg(2N) in the upper half, reg(2N+1) in the lower half).
for (let i = 0; i < 8; i++) def(`xreg${i}`, OXM_CLASS.PKT_REG, i, 8, true, 'hex', `xreg${i}`);

// Fields OVS encodes with NXM class 0 headers (decoded when met, e.g. in `move` references).
def('in_port16', N0, 0, 2, false, 'port', 'NXM_OF_IN_PORT');

/**
 * Legacy NXM headers of fields whose canonical header is an OXM one. OVS uses these in field
 * references of NX actions (learn, ct zone, output_reg), so they must decode to the same field.
 */
const LEGACY: Record<string, readonly [number, number]> = {
  eth_dst: [N0, 1],
  eth_src: [N0, 2],
  eth_type: [N0, 3],
  ip_proto: [N0, 6],
  nw_src: [N0, 7],
  nw_dst: [N0, 8],
  tcp_src: [N0, 9],
  tcp_dst: [N0, 10],
  udp_src: [N0, 11],
  udp_dst: [N0, 12],
  icmp_type: [N0, 13],
  icmp_code: [N0, 14],
  arp_op: [N0, 15],
  arp_spa: [N0, 16],
  arp_tpa: [N0, 17],
  tun_id: [N1, 16],
  arp_sha: [N1, 17],
  arp_tha: [N1, 18],
  ipv6_src: [N1, 19],
  ipv6_dst: [N1, 20],
  icmpv6_type: [N1, 21],
  icmpv6_code: [N1, 22],
  nd_target: [N1, 23],
  nd_sll: [N1, 24],
  nd_tll: [N1, 25],
  tcp_flags: [N1, 34],
};

export type FieldName = string;

const byName = new Map<string, FieldDef>(defs.map((d) => [d.name, d]));
const byHeader = new Map<number, FieldDef>(defs.map((d) => [d.oxmClass * 0x10000 + d.oxmField, d]));
for (const [name, [cls, field]] of Object.entries(LEGACY))
  byHeader.set(cls * 0x10000 + field, byName.get(name)!);
const byNxmName = new Map<string, FieldDef>();
for (const d of defs) if (!byNxmName.has(d.nxmName)) byNxmName.set(d.nxmName, d);

/** Alternative spellings accepted on input (ovs-fields(7) aliases). */
const ALIASES: Record<string, string> = {
  dl_src: 'eth_src',
  dl_dst: 'eth_dst',
  dl_type: 'eth_type',
  nw_proto: 'ip_proto',
  ip_src: 'nw_src',
  ip_dst: 'nw_dst',
  ipv4_src: 'nw_src',
  ipv4_dst: 'nw_dst',
  icmpv4_type: 'icmp_type',
  icmpv4_code: 'icmp_code',
  tun_ipv4_src: 'tun_src',
  tun_ipv4_dst: 'tun_dst',
  tunnel_id: 'tun_id',
};

export function allFields(): readonly FieldDef[] {
  return defs;
}

export function lookupField(name: string): FieldDef | undefined {
  const key = ALIASES[name] ?? name;
  return byName.get(key) ?? byNxmName.get(name);
}

export function getField(name: string): FieldDef {
  const f = lookupField(name);
  if (!f) throw new OfEncodeError(`unknown field "${name}"`);
  return f;
}

export function fieldByHeader(oxmClass: number, oxmField: number): FieldDef | undefined {
  return byHeader.get(oxmClass * 0x10000 + oxmField);
}

/** OXM/NXM 32-bit header for `f`, with or without the has-mask bit. */
export function oxmHeader(f: FieldDef, hasMask: boolean): number {
  const len = hasMask ? f.bytes * 2 : f.bytes;
  return ((f.oxmClass << 16) | (f.oxmField << 9) | (hasMask ? 0x100 : 0) | len) >>> 0;
}

/**
 * Header OVS puts in sub-field references. `legacy` (NX actions: learn, ct zone, output_reg)
 * prefers the NXM header; otherwise (OpenFlow 1.5 copy_field) the OXM header is used.
 * in_port is referenced as the 16-bit NXM_OF_IN_PORT either way.
 */
export function refHeader(f: FieldDef, legacy: boolean): number {
  if (f.name === 'in_port' || f.name === 'in_port16') return oxmHeader(byName.get('in_port16')!, false);
  const l = legacy ? LEGACY[f.name] : undefined;
  if (l) return ((l[0] << 16) | (l[1] << 9) | f.bytes) >>> 0;
  return oxmHeader(f, false);
}

export function fieldBits(f: FieldDef): number {
  return f.bytes * 8;
}

export function allOnes(bytes: number): bigint {
  return (1n << BigInt(bytes * 8)) - 1n;
}

// ---------------------------------------------------------------------------------------------
// Reserved port names as ovs-ofctl prints them.

export const PORT_NAMES: Record<number, string> = {
  4294967288: 'IN_PORT',
  4294967289: 'TABLE',
  4294967290: 'NORMAL',
  4294967291: 'FLOOD',
  4294967292: 'ALL',
  4294967293: 'CONTROLLER',
  4294967294: 'LOCAL',
  4294967295: 'ANY',
};
const PORT_BY_NAME = new Map(Object.entries(PORT_NAMES).map(([k, v]) => [v, Number(k)]));

export function formatPort(p: number): string {
  return PORT_NAMES[p] ?? String(p);
}

export function parsePort(s: string): number {
  const named = PORT_BY_NAME.get(s.toUpperCase());
  if (named !== undefined) return named;
  if (s.toUpperCase() === 'NONE') return 0xffffffff;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new OfParseError(`bad port "${s}"`);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Value text helpers.

export function macToBigint(s: string): bigint {
  const parts = s.split(':');
  if (parts.length !== 6 || parts.some((p) => !/^[0-9a-fA-F]{1,2}$/.test(p))) {
    throw new OfParseError(`bad MAC address "${s}"`);
  }
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number.parseInt(p, 16)), 0n);
}

export function formatMac(v: bigint): string {
  const out: string[] = [];
  for (let i = 5; i >= 0; i--)
    out.push(
      Number((v >> BigInt(i * 8)) & 0xffn)
        .toString(16)
        .padStart(2, '0'),
    );
  return out.join(':');
}

export function ipv4ToBigint(s: string): bigint {
  const parts = s.split('.');
  if (parts.length !== 4) throw new OfParseError(`bad IPv4 address "${s}"`);
  let v = 0n;
  for (const p of parts) {
    const n = Number(p);
    if (!/^\d{1,3}$/.test(p) || n > 255) throw new OfParseError(`bad IPv4 address "${s}"`);
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

export function formatIpv4(v: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String(Number((v >> s) & 0xffn))).join('.');
}

export function ipv6ToBigint(s: string): bigint {
  let text = s;
  let tail: bigint[] = [];
  // An embedded dotted quad becomes the last two groups.
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.') && lastColon >= 0) {
    const v4 = ipv4ToBigint(text.slice(lastColon + 1));
    tail = [v4 >> 16n, v4 & 0xffffn];
    text = `${text.slice(0, lastColon + 1)}0:0`;
    tail = tail.length ? tail : [];
  }
  const halves = text.split('::');
  if (halves.length > 2) throw new OfParseError(`bad IPv6 address "${s}"`);
  const parse = (h: string): bigint[] =>
    h === ''
      ? []
      : h.split(':').map((g) => {
          if (!/^[0-9a-fA-F]{1,4}$/.test(g)) throw new OfParseError(`bad IPv6 address "${s}"`);
          return BigInt(Number.parseInt(g, 16));
        });
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== 8))
    throw new OfParseError(`bad IPv6 address "${s}"`);
  const groups = [...head, ...new Array<bigint>(fill).fill(0n), ...rest];
  if (tail.length === 2) {
    groups[6] = tail[0]!;
    groups[7] = tail[1]!;
  }
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** RFC 5952 text (lowercase, longest zero run of 2+ groups compressed), as inet_ntop prints it. */
export function formatIpv6(v: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return groups.map((g) => g.toString(16)).join(':');
  const left = groups.slice(0, bestStart).map((g) => g.toString(16));
  const right = groups.slice(bestStart + bestLen).map((g) => g.toString(16));
  return `${left.join(':')}::${right.join(':')}`;
}

/** Number of leading one bits if `mask` is a CIDR mask of `bits` width, else -1. */
export function cidrBits(mask: bigint, bits: number): number {
  const full = (1n << BigInt(bits)) - 1n;
  const inv = full ^ mask;
  if ((inv & (inv + 1n)) !== 0n) return -1;
  let n = 0;
  for (let m = mask; m !== 0n; m = (m << 1n) & full) n++;
  return n;
}

export function prefixMask(prefix: number, bits: number): bigint {
  if (prefix < 0 || prefix > bits) throw new OfParseError(`bad prefix length ${prefix}`);
  const full = (1n << BigInt(bits)) - 1n;
  return prefix === 0 ? 0n : (full << BigInt(bits - prefix)) & full;
}

/** Parses an integer in C syntax (decimal or 0x-hex), as a bigint. */
export function parseIntText(s: string): bigint {
  const t = s.trim();
  if (/^0x[0-9a-fA-F]+$/i.test(t)) return BigInt(t);
  if (/^\d+$/.test(t)) return BigInt(t);
  throw new OfParseError(`bad integer "${s}"`);
}

/** C `%#x`: `0` for zero, `0x…` otherwise. */
export function hexAlt(v: bigint | number): string {
  const b = BigInt(v);
  return b === 0n ? '0' : `0x${b.toString(16)}`;
}

export const CT_STATE_BITS: ReadonlyArray<readonly [string, number]> = [
  ['new', 0x01],
  ['est', 0x02],
  ['rel', 0x04],
  ['rpl', 0x08],
  ['inv', 0x10],
  ['trk', 0x20],
  ['snat', 0x40],
  ['dnat', 0x80],
];

export const TCP_FLAG_BITS: ReadonlyArray<readonly [string, number]> = [
  ['fin', 0x001],
  ['syn', 0x002],
  ['rst', 0x004],
  ['psh', 0x008],
  ['ack', 0x010],
  ['urg', 0x020],
  ['ece', 0x040],
  ['cwr', 0x080],
  ['ns', 0x100],
];

/** Parses "+trk+new-inv" style flag text into value/mask. */
export function parseFlags(
  s: string,
  bits: ReadonlyArray<readonly [string, number]>,
): { value: bigint; mask: bigint } {
  let value = 0n;
  let mask = 0n;
  const re = /([+-])([a-z]+)/g;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const bit = bits.find(([n]) => n === m![2]);
    if (!bit) throw new OfParseError(`unknown flag "${m[2]}" in "${s}"`);
    mask |= BigInt(bit[1]);
    if (m[1] === '+') value |= BigInt(bit[1]);
    consumed += m[0].length;
  }
  if (consumed !== s.length) throw new OfParseError(`bad flags "${s}"`);
  return { value, mask };
}

/** Formats flags like OVS format_flags_masked: `+a-b` in bit order; `a|b` when fully masked. */
export function formatFlags(
  value: bigint,
  mask: bigint,
  maxMask: bigint,
  bits: ReadonlyArray<readonly [string, number]>,
): string {
  if (mask === maxMask) {
    const names = bits.filter(([, b]) => (value & BigInt(b)) !== 0n).map(([n]) => n);
    return names.length ? names.join('|') : '0';
  }
  if (mask === 0n) return '0/0';
  let out = '';
  for (const [name, b] of bits) {
    const bit = BigInt(b);
    if ((mask & bit) === 0n) continue;
    out += `${(value & bit) !== 0n ? '+' : '-'}${name}`;
  }
  return out;
}
