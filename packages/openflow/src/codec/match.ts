import { OfDecodeError, OfEncodeError, OfParseError } from '../errors.js';
import type { Reader, Writer } from './buffer.js';
import {
  allFields,
  allOnes,
  CT_STATE_BITS,
  type FieldDef,
  fieldByHeader,
  getField,
  ipv4ToBigint,
  ipv6ToBigint,
  macToBigint,
  oxmHeader,
  parseFlags,
  parseIntText,
  parsePort,
  prefixMask,
  TCP_FLAG_BITS,
} from './fields.js';

/** One match criterion. `mask` is absent for an exact match; set bits in `mask` are matched. */
export interface MatchField {
  field: string;
  value: bigint;
  mask?: bigint;
}

/** A normalized match: canonical field names, value&mask applied, registry order. */
export type Match = MatchField[];

export type MatchScalar = number | bigint | string;
export type MatchValue = MatchScalar | { value: MatchScalar; mask: MatchScalar } | true;
/** Convenience input: `{ ip: true, nw_src: '10.0.0.0/24', reg1: 3, ct_state: '+trk+new' }`. */
export type MatchSpec = Record<string, MatchValue>;

/** Protocol shorthands of ovs-ofctl and the fields they stand for. */
export const PROTOCOL_SHORTHANDS: Record<string, ReadonlyArray<readonly [string, number]>> = {
  ip: [['eth_type', 0x0800]],
  ipv6: [['eth_type', 0x86dd]],
  arp: [['eth_type', 0x0806]],
  icmp: [
    ['eth_type', 0x0800],
    ['ip_proto', 1],
  ],
  tcp: [
    ['eth_type', 0x0800],
    ['ip_proto', 6],
  ],
  udp: [
    ['eth_type', 0x0800],
    ['ip_proto', 17],
  ],
  sctp: [
    ['eth_type', 0x0800],
    ['ip_proto', 132],
  ],
  icmp6: [
    ['eth_type', 0x86dd],
    ['ip_proto', 58],
  ],
  tcp6: [
    ['eth_type', 0x86dd],
    ['ip_proto', 6],
  ],
  udp6: [
    ['eth_type', 0x86dd],
    ['ip_proto', 17],
  ],
  sctp6: [
    ['eth_type', 0x86dd],
    ['ip_proto', 132],
  ],
};

/**
 * Wire order of match fields: the order OVS itself emits (lib/nx-match.c nx_put_raw for OpenFlow
 * 1.5), so that our flow_mods are byte-identical to ovs-ofctl's for the same flow.
 */
const WIRE_ORDER = [
  'conj_id',
  'in_port',
  'eth_src',
  'eth_dst',
  'eth_type',
  'vlan_vid',
  'nw_src',
  'nw_dst',
  'ipv6_src',
  'ipv6_dst',
  'ip_dscp',
  'nw_ttl',
  'ip_proto',
  'tcp_src',
  'tcp_dst',
  'tcp_flags',
  'udp_src',
  'udp_dst',
  'sctp_src',
  'sctp_dst',
  'icmp_type',
  'icmp_code',
  'icmpv6_type',
  'icmpv6_code',
  'nd_target',
  'nd_sll',
  'nd_tll',
  'arp_op',
  'arp_spa',
  'arp_tpa',
  'arp_sha',
  'arp_tha',
  'tun_id',
  'tun_src',
  'tun_dst',
  'tun_ipv6_src',
  'tun_ipv6_dst',
  ...Array.from({ length: 8 }, (_, i) => `xreg${i}`),
  ...Array.from({ length: 16 }, (_, i) => `reg${i}`),
  ...Array.from({ length: 4 }, (_, i) => `xxreg${i}`),
  'pkt_mark',
  'ct_state',
  'ct_zone',
  'ct_mark',
  'ct_label',
  'ct_nw_src',
  'ct_ipv6_src',
  'ct_nw_dst',
  'ct_ipv6_dst',
  'ct_nw_proto',
  'ct_tp_src',
  'ct_tp_dst',
  'metadata',
];
const order = new Map<string, number>(WIRE_ORDER.map((n, i) => [n, i]));
const REGISTER_FIELDS = new Set(WIRE_ORDER.filter((n) => /^x{0,2}reg\d+$/.test(n)));
for (const f of allFields()) if (!order.has(f.name)) order.set(f.name, order.size);

/** Parses the textual value of `f` (`10.0.0.0/24`, `0x3/0xf`, `+trk-inv`, `LOCAL`, …). */
export function parseFieldValue(f: FieldDef, text: string): { value: bigint; mask?: bigint } {
  const bits = f.bytes * 8;
  const slash = text.indexOf('/');
  const main = slash >= 0 ? text.slice(0, slash) : text;
  const maskText = slash >= 0 ? text.slice(slash + 1) : undefined;
  switch (f.kind) {
    case 'port':
      if (maskText !== undefined) throw new OfParseError(`${f.name} cannot be masked`);
      return { value: BigInt(parsePort(main)) };
    case 'mac':
      return { value: macToBigint(main), ...(maskText ? { mask: macToBigint(maskText) } : {}) };
    case 'ipv4': {
      const value = ipv4ToBigint(main);
      if (maskText === undefined) return { value };
      return {
        value,
        mask: maskText.includes('.') ? ipv4ToBigint(maskText) : prefixMask(Number(maskText), 32),
      };
    }
    case 'ipv6': {
      const value = ipv6ToBigint(main);
      if (maskText === undefined) return { value };
      return {
        value,
        mask: maskText.includes(':') ? ipv6ToBigint(maskText) : prefixMask(Number(maskText), 128),
      };
    }
    case 'ct_state':
    case 'tcp_flags':
      if (/^[+-]/.test(text)) return parseFlags(text, f.kind === 'ct_state' ? CT_STATE_BITS : TCP_FLAG_BITS);
      break;
    case 'dscp':
      // ovs-ofctl's nw_tos is the TOS byte; the OXM carries the 6-bit DSCP.
      return { value: parseIntText(main) };
    default:
      break;
  }
  const value = parseIntText(main);
  if (maskText !== undefined) return { value, mask: parseIntText(maskText) };
  if (value > allOnes(bits / 8)) throw new OfParseError(`value ${text} too wide for ${f.name}`);
  return { value };
}

function toBig(f: FieldDef, v: MatchScalar): { value: bigint; mask?: bigint } {
  if (typeof v === 'string') return parseFieldValue(f, v);
  return { value: BigInt(v) };
}

/** Normalizes one criterion: drops full masks, clears value bits outside the mask, checks widths. */
export function normalizeField(f: FieldDef, value: bigint, mask?: bigint): MatchField {
  const full = allOnes(f.bytes);
  if (value < 0n || value > full)
    throw new OfEncodeError(`value 0x${value.toString(16)} too wide for ${f.name}`);
  if (mask === undefined || mask === full) return { field: f.name, value };
  if (mask < 0n || mask > full) throw new OfEncodeError(`mask too wide for ${f.name}`);
  if (!f.maskable) throw new OfEncodeError(`field ${f.name} is not maskable`);
  return { field: f.name, value: value & mask, mask };
}

export function sortMatch(m: Match): Match {
  return [...m].sort((a, b) => (order.get(a.field) ?? 1e6) - (order.get(b.field) ?? 1e6));
}

/**
 * Canonical register form: xxregN and xregN criteria become the 32-bit regN criteria OVS keeps
 * internally, so a match built from xxreg3 compares equal to the reg12..reg15 that a dump returns.
 */
export function splitRegisters(m: Match): Match {
  const out: MatchField[] = [];
  for (const mf of m) {
    const xx = /^xxreg(\d)$/.exec(mf.field);
    const x = /^xreg(\d)$/.exec(mf.field);
    if (!xx && !x) {
      out.push(mf);
      continue;
    }
    const parts = xx ? 4 : 2;
    const base = Number((xx ?? x)![1]) * parts;
    const mask = mf.mask ?? allOnes(parts * 4);
    for (let i = 0; i < parts; i++) {
      const shift = BigInt((parts - 1 - i) * 32);
      const pm = (mask >> shift) & 0xffffffffn;
      if (pm === 0n) continue;
      const pv = (mf.value >> shift) & 0xffffffffn;
      const field = `reg${base + i}`;
      out.push(pm === 0xffffffffn ? { field, value: pv } : { field, value: pv, mask: pm });
    }
  }
  return sortMatch(out);
}

/** Wire form of registers: pairs of 32-bit registers travel as one OXM_OF_PKT_REG (xreg), as OVS sends them. */
function joinRegisters(m: Match): Match {
  const regs = new Map<number, MatchField>();
  const out: MatchField[] = [];
  for (const mf of splitRegisters(m)) {
    const r = /^reg(\d+)$/.exec(mf.field);
    if (r) regs.set(Number(r[1]), mf);
    else out.push(mf);
  }
  for (let x = 0; x < 8; x++) {
    const hi = regs.get(2 * x);
    const lo = regs.get(2 * x + 1);
    if (!hi && !lo) continue;
    const hm = hi ? (hi.mask ?? 0xffffffffn) : 0n;
    const lm = lo ? (lo.mask ?? 0xffffffffn) : 0n;
    const value = ((hi?.value ?? 0n) << 32n) | (lo?.value ?? 0n);
    const mask = (hm << 32n) | lm;
    out.push(mask === allOnes(8) ? { field: `xreg${x}`, value } : { field: `xreg${x}`, value, mask });
  }
  return sortMatch(out);
}

/** Builds a normalized Match from a convenience spec. */
export function buildMatch(spec: MatchSpec): Match {
  const out = new Map<string, MatchField>();
  for (const [key, raw] of Object.entries(spec)) {
    const shorthand = PROTOCOL_SHORTHANDS[key];
    if (shorthand) {
      if (raw !== true) throw new OfEncodeError(`protocol shorthand ${key} takes true`);
      for (const [name, v] of shorthand) out.set(name, { field: name, value: BigInt(v) });
      continue;
    }
    if (raw === true) throw new OfEncodeError(`field ${key} needs a value`);
    const f = getField(key);
    let parsed: { value: bigint; mask?: bigint };
    if (typeof raw === 'object') {
      const v = toBig(f, raw.value);
      const m = toBig(f, raw.mask);
      parsed = { value: v.value, mask: m.value };
    } else {
      parsed = toBig(f, raw);
    }
    out.set(f.name, normalizeField(f, parsed.value, parsed.mask));
  }
  return splitRegisters([...out.values()]);
}

/** Writes one OXM TLV (header, value, optional mask). */
export function encodeOxmField(w: Writer, mf: MatchField): void {
  const f = getField(mf.field);
  const hasMask = mf.mask !== undefined;
  w.u32(oxmHeader(f, hasMask));
  w.uint(mf.value, f.bytes);
  if (hasMask) w.uint(mf.mask!, f.bytes);
}

/** Writes a struct ofp_match (type OFPMT_OXM) padded to 8 bytes; returns bytes written. */
export function encodeMatch(w: Writer, match: Match): number {
  const start = w.length;
  w.u16(1); // OFPMT_OXM
  w.u16(0); // length, patched below (excludes padding)
  const fields = match.some((mf) => REGISTER_FIELDS.has(mf.field)) ? joinRegisters(match) : match;
  for (const mf of fields) encodeOxmField(w, mf);
  w.setU16(start + 2, w.length - start);
  w.padTo(8, start);
  return w.length - start;
}

/** Reads one OXM TLV. Unknown fields decode as `oxm:<class>:<field>` so nothing is silently lost. */
export function decodeOxmField(r: Reader): MatchField {
  const header = r.u32();
  const cls = header >>> 16;
  const field = (header >>> 9) & 0x7f;
  const hasMask = (header & 0x100) !== 0;
  let len = header & 0xff;
  if (cls === 0xffff) {
    // Experimenter OXM: 4-byte experimenter id follows and counts in the length.
    r.u32();
    len -= 4;
  }
  if (len <= 0 || (hasMask && len % 2 !== 0))
    throw new OfDecodeError(`bad OXM length ${len} in 0x${header.toString(16)}`);
  const f = fieldByHeader(cls, field);
  const width = hasMask ? len / 2 : len;
  if (!f || f.bytes !== width) {
    // Keep unknown fields visible rather than dropping them.
    const value = r.uint(width);
    const mask = hasMask ? r.uint(width) : undefined;
    return { field: `oxm:0x${cls.toString(16)}:${field}`, value, ...(mask !== undefined ? { mask } : {}) };
  }
  const value = r.uint(width);
  if (!hasMask) return { field: f.name, value };
  const mask = r.uint(width);
  if (mask === allOnes(width)) return { field: f.name, value };
  return { field: f.name, value: value & mask, mask };
}

/** Reads a struct ofp_match including its trailing padding. */
export function decodeMatch(r: Reader): Match {
  const start = r.pos;
  const type = r.u16();
  const length = r.u16();
  if (type !== 1) throw new OfDecodeError(`unsupported match type ${type}`);
  if (length < 4) throw new OfDecodeError(`bad match length ${length}`);
  const body = r.sub(length - 4, 'match');
  const fields: Match = [];
  while (body.remaining > 0) fields.push(decodeOxmField(body));
  const padded = Math.ceil(length / 8) * 8;
  r.skip(padded - (r.pos - start));
  return splitRegisters(fields);
}

/** Reads consecutive OXM TLVs until the reader is exhausted (NXPINT_METADATA, etc.). */
export function decodeOxmList(r: Reader): Match {
  const fields: Match = [];
  while (r.remaining > 0) fields.push(decodeOxmField(r));
  return splitRegisters(fields);
}

export function matchGet(m: Match, field: string): MatchField | undefined {
  return m.find((x) => x.field === field);
}
