import { OfDecodeError, OfEncodeError } from '../errors.js';
import { Reader, Writer } from './buffer.js';
import {
  NX_CT_F,
  NX_CT_RECIRC_NONE,
  NX_LEARN_DST,
  NX_LEARN_F,
  NX_LEARN_SRC_IMMEDIATE,
  NX_NAT_F,
  NX_NAT_RANGE,
  NX_VENDOR_ID,
  NXAC2PT,
  NXAST,
  OFPAT,
  OFPCML_NO_BUFFER,
  OFPIT,
  OFPR,
  type PacketInReason,
} from './constants.js';
import {
  allOnes,
  type FieldDef,
  fieldByHeader,
  refHeader as fieldRefHeader,
  formatIpv4,
  formatIpv6,
  getField,
  ipv4ToBigint,
  ipv6ToBigint,
} from './fields.js';
import { decodeOxmField, encodeOxmField, normalizeField } from './match.js';

/** A bit range of a field, e.g. NXM_NX_REG0[0..15]. `end` is inclusive. */
export interface Subfield {
  field: string;
  start: number;
  end: number;
}

export interface NatSpec {
  kind?: 'src' | 'dst';
  /** Address range; IPv4 or IPv6 text. `max` defaults to `min`. */
  addrMin?: string;
  addrMax?: string;
  portMin?: number;
  portMax?: number;
  persistent?: boolean;
  hash?: boolean;
  random?: boolean;
}

export type LearnSpec =
  | { kind: 'match'; dst: Subfield; src: Subfield | { value: bigint } }
  | { kind: 'load'; dst: Subfield; src: Subfield | { value: bigint } }
  | { kind: 'output'; src: Subfield };

export interface LearnAction {
  type: 'learn';
  table: number;
  idleTimeout?: number;
  hardTimeout?: number;
  finIdleTimeout?: number;
  finHardTimeout?: number;
  priority?: number;
  cookie?: bigint;
  sendFlowRem?: boolean;
  deleteLearned?: boolean;
  specs: LearnSpec[];
}

export interface ControllerAction {
  type: 'controller';
  maxLen?: number;
  controllerId?: number;
  reason?: PacketInReason;
  userdata?: Buffer;
  pause?: boolean;
  meterId?: number;
}

export interface CtAction {
  type: 'ct';
  commit?: boolean;
  force?: boolean;
  /** Immediate zone or a 16-bit subfield to take it from. */
  zone?: number | Subfield;
  /** Recirculate to this table after conntrack. */
  table?: number;
  alg?: number;
  nat?: NatSpec;
  /** Actions run inside the connection (set_field on ct_mark / ct_label). */
  exec?: Action[];
}

/**
 * Actions and the instruction pseudo-actions (goto_table, write_actions, ...), modelled as one list
 * the way ovs-ofctl prints them: `actions=ct(...),resubmit(,20),goto_table:30`.
 */
export type Action =
  | { type: 'output'; port: number; maxLen?: number }
  | { type: 'output_reg'; src: Subfield; maxLen?: number }
  | { type: 'group'; groupId: number }
  | { type: 'set_field'; field: string; value: bigint; mask?: bigint }
  | { type: 'move'; src: Subfield; dst: Subfield }
  | { type: 'resubmit'; port?: number; table?: number; ct?: boolean }
  | { type: 'conjunction'; id: number; clause: number; nClauses: number }
  | CtAction
  | { type: 'ct_clear' }
  | { type: 'dec_ttl' }
  | ControllerAction
  | LearnAction
  | { type: 'note'; data: Buffer }
  | { type: 'push_vlan'; ethertype: number }
  | { type: 'pop_vlan' }
  | { type: 'meter'; meterId: number }
  | { type: 'exit' }
  | { type: 'unknown'; raw: Buffer }
  // Instructions (order on the wire: apply, clear, write, write_metadata, goto).
  | { type: 'clear_actions' }
  | { type: 'write_actions'; actions: Action[] }
  | { type: 'write_metadata'; value: bigint; mask?: bigint }
  | { type: 'goto_table'; table: number };

// ---------------------------------------------------------------------------------------------
// Builders that spell the common cases compactly.

/** Width in bits of a field when referenced as a sub-field (in_port is the 16-bit NXM form there). */
export function refWidth(field: string): number {
  const f = getField(field);
  return f.name === 'in_port' || f.name === 'in_port16' ? 16 : f.bytes * 8;
}

export function subfield(field: string, start?: number, end?: number): Subfield {
  const f = getField(field);
  const name = f.name === 'in_port16' ? 'in_port' : f.name;
  return { field: name, start: start ?? 0, end: end ?? refWidth(name) - 1 };
}

/** `load:value->field[start..end]`; OpenFlow 1.5 carries it as a masked set_field. */
export function load(field: string, value: bigint | number, start?: number, end?: number): Action {
  const f = getField(field);
  const s = start ?? 0;
  const e = end ?? f.bytes * 8 - 1;
  const width = e - s + 1;
  if (width <= 0 || e >= f.bytes * 8) throw new OfEncodeError(`bad bit range ${s}..${e} for ${f.name}`);
  const v = BigInt(value);
  if (v >= 1n << BigInt(width)) throw new OfEncodeError(`value ${v} does not fit ${width} bits`);
  const mask = ((1n << BigInt(width)) - 1n) << BigInt(s);
  const full = allOnes(f.bytes);
  return mask === full
    ? { type: 'set_field', field: f.name, value: v }
    : { type: 'set_field', field: f.name, value: v << BigInt(s), mask };
}

const INSTRUCTION_TYPES = new Set(['clear_actions', 'write_actions', 'write_metadata', 'goto_table']);

export function isInstruction(a: Action): boolean {
  return INSTRUCTION_TYPES.has(a.type);
}

// ---------------------------------------------------------------------------------------------
// Encoding.

function nxHeader(w: Writer, subtype: number): number {
  const start = w.length;
  w.u16(OFPAT.EXPERIMENTER).u16(0).u32(NX_VENDOR_ID).u16(subtype);
  return start;
}

function finishAction(w: Writer, start: number): void {
  w.padTo(8, start);
  w.setU16(start + 2, w.length - start);
}

function ofsNbits(sf: Subfield): number {
  return (sf.start << 6) | (sf.end - sf.start);
}

function checkSubfield(sf: Subfield): FieldDef {
  const f = getField(sf.field);
  if (sf.start < 0 || sf.end < sf.start || sf.end >= refWidth(f.name)) {
    throw new OfEncodeError(`bad bit range ${sf.start}..${sf.end} for ${f.name}`);
  }
  return f;
}

/** Field header in NX-action references (learn, ct zone, output_reg): legacy NXM form. */
function refHeader(sf: Subfield): number {
  return fieldRefHeader(checkSubfield(sf), true);
}

/** Field header in OpenFlow 1.5 copy_field: OXM form where one exists. */
function refHeaderOxm(sf: Subfield): number {
  return fieldRefHeader(checkSubfield(sf), false);
}

function encodeNat(w: Writer, nat: NatSpec): void {
  const start = nxHeader(w, NXAST.NAT);
  w.zeros(2);
  let flags = 0;
  if (nat.kind === 'src') flags |= NX_NAT_F.SRC;
  if (nat.kind === 'dst') flags |= NX_NAT_F.DST;
  if (nat.persistent) flags |= NX_NAT_F.PERSISTENT;
  if (nat.hash) flags |= NX_NAT_F.PROTO_HASH;
  if (nat.random) flags |= NX_NAT_F.PROTO_RANDOM;
  w.u16(flags);
  const presentAt = w.length;
  w.u16(0);
  let present = 0;
  if (nat.addrMin !== undefined) {
    const v6 = nat.addrMin.includes(':');
    const f = getField(v6 ? 'ipv6_src' : 'nw_src');
    w.uint(parseAddr(f, nat.addrMin), f.bytes);
    present |= v6 ? NX_NAT_RANGE.IPV6_MIN : NX_NAT_RANGE.IPV4_MIN;
    if (nat.addrMax !== undefined && nat.addrMax !== nat.addrMin) {
      w.uint(parseAddr(f, nat.addrMax), f.bytes);
      present |= v6 ? NX_NAT_RANGE.IPV6_MAX : NX_NAT_RANGE.IPV4_MAX;
    }
  }
  if (nat.portMin) {
    w.u16(nat.portMin);
    present |= NX_NAT_RANGE.PROTO_MIN;
    if (nat.portMax && nat.portMax !== nat.portMin) {
      w.u16(nat.portMax);
      present |= NX_NAT_RANGE.PROTO_MAX;
    }
  }
  w.setU16(presentAt, present);
  finishAction(w, start);
}

function parseAddr(f: FieldDef, text: string): bigint {
  return f.bytes === 16 ? ipv6ToBigint(text) : ipv4ToBigint(text);
}

function encodeLearnValue(w: Writer, value: bigint, nBits: number): void {
  const bytes = Math.ceil(nBits / 16) * 2;
  w.uint(value, bytes);
}

function learnBits(spec: LearnSpec): number {
  const sf = spec.kind === 'output' ? spec.src : spec.dst;
  return sf.end - sf.start + 1;
}

function encodeLearn(w: Writer, a: LearnAction): void {
  const start = nxHeader(w, NXAST.LEARN);
  w.u16(a.idleTimeout ?? 0);
  w.u16(a.hardTimeout ?? 0);
  w.u16(a.priority ?? 0x8000);
  w.u64(a.cookie ?? 0n);
  let flags = 0;
  if (a.sendFlowRem) flags |= NX_LEARN_F.SEND_FLOW_REM;
  if (a.deleteLearned) flags |= NX_LEARN_F.DELETE_LEARNED;
  w.u16(flags);
  w.u8(a.table);
  w.u8(0);
  w.u16(a.finIdleTimeout ?? 0);
  w.u16(a.finHardTimeout ?? 0);
  for (const spec of a.specs) {
    const nBits = learnBits(spec);
    if (spec.kind === 'output') {
      w.u16(NX_LEARN_DST.OUTPUT | nBits);
      w.u32(refHeader(spec.src)).u16(spec.src.start);
      continue;
    }
    const dstType = spec.kind === 'match' ? NX_LEARN_DST.MATCH : NX_LEARN_DST.LOAD;
    if ('value' in spec.src) {
      w.u16(NX_LEARN_SRC_IMMEDIATE | dstType | nBits);
      encodeLearnValue(w, spec.src.value, nBits);
    } else {
      w.u16(dstType | nBits);
      w.u32(refHeader(spec.src)).u16(spec.src.start);
    }
    w.u32(refHeader(spec.dst)).u16(spec.dst.start);
  }
  finishAction(w, start);
}

function encodeController(w: Writer, a: ControllerAction): void {
  const start = nxHeader(w, NXAST.CONTROLLER2);
  w.zeros(6);
  const prop = (type: number, body: (w: Writer) => void): void => {
    const p = w.length;
    w.u16(type).u16(0);
    body(w);
    w.setU16(p + 2, w.length - p);
    w.padTo(8, p);
  };
  if (a.maxLen !== undefined && a.maxLen !== OFPCML_NO_BUFFER)
    prop(NXAC2PT.MAX_LEN, (x) => x.u16(a.maxLen!).zeros(2));
  if (a.controllerId) prop(NXAC2PT.CONTROLLER_ID, (x) => x.u16(a.controllerId!).zeros(2));
  if (a.reason !== undefined && a.reason !== 'action') prop(NXAC2PT.REASON, (x) => x.u8(OFPR[a.reason!]));
  if (a.userdata?.length) prop(NXAC2PT.USERDATA, (x) => x.bytes(a.userdata!));
  if (a.pause) prop(NXAC2PT.PAUSE, () => {});
  if (a.meterId) prop(NXAC2PT.METER_ID, (x) => x.u32(a.meterId!));
  finishAction(w, start);
}

function encodeCt(w: Writer, a: CtAction): void {
  const start = nxHeader(w, NXAST.CT);
  let flags = 0;
  if (a.commit) flags |= NX_CT_F.COMMIT;
  if (a.force) flags |= NX_CT_F.FORCE;
  w.u16(flags);
  if (typeof a.zone === 'object') {
    w.u32(refHeader(a.zone)).u16(ofsNbits(a.zone));
  } else {
    w.u32(0).u16(a.zone ?? 0);
  }
  w.u8(a.table ?? NX_CT_RECIRC_NONE);
  w.zeros(3);
  w.u16(a.alg ?? 0);
  if (a.nat) encodeNat(w, a.nat);
  for (const inner of a.exec ?? []) encodeAction(w, inner);
  finishAction(w, start);
}

/** Encodes one action (not an instruction) into `w`. */
export function encodeAction(w: Writer, a: Action): void {
  const start = w.length;
  switch (a.type) {
    case 'output':
      w.u16(OFPAT.OUTPUT)
        .u16(16)
        .u32(a.port)
        .u16(a.maxLen ?? (a.port === OFPP_CONTROLLER ? OFPCML_NO_BUFFER : 0)) // OVS sends 0 unless controller
        .zeros(6);
      return;
    case 'group':
      w.u16(OFPAT.GROUP).u16(8).u32(a.groupId);
      return;
    case 'dec_ttl':
      w.u16(OFPAT.DEC_NW_TTL).u16(8).zeros(4);
      return;
    case 'push_vlan':
      w.u16(OFPAT.PUSH_VLAN).u16(8).u16(a.ethertype).zeros(2);
      return;
    case 'pop_vlan':
      w.u16(OFPAT.POP_VLAN).u16(8).zeros(4);
      return;
    case 'meter':
      w.u16(OFPAT.METER).u16(8).u32(a.meterId);
      return;
    case 'set_field': {
      const f = getField(a.field);
      const mf = normalizeField(f, a.value, a.mask);
      w.u16(OFPAT.SET_FIELD).u16(0);
      encodeOxmField(w, mf);
      finishAction(w, start);
      return;
    }
    case 'move': {
      const srcBits = a.src.end - a.src.start + 1;
      const dstBits = a.dst.end - a.dst.start + 1;
      if (srcBits !== dstBits) throw new OfEncodeError(`move widths differ: ${srcBits} vs ${dstBits}`);
      w.u16(OFPAT.COPY_FIELD).u16(0).u16(srcBits).u16(a.src.start).u16(a.dst.start).zeros(2);
      w.u32(refHeaderOxm(a.src)).u32(refHeaderOxm(a.dst));
      finishAction(w, start);
      return;
    }
    case 'output_reg':
      nxHeader(w, NXAST_OUTPUT_REG);
      w.u16(ofsNbits(a.src))
        .u32(refHeader(a.src))
        .u16(a.maxLen ?? OFPCML_NO_BUFFER)
        .zeros(6);
      finishAction(w, start);
      return;
    case 'resubmit':
      nxHeader(w, a.ct ? NXAST.RESUBMIT_TABLE_CT : NXAST.RESUBMIT_TABLE);
      w.u16(a.port === undefined ? 0xfff8 : portTo16(a.port))
        .u8(a.table ?? 0xff)
        .zeros(3);
      finishAction(w, start);
      return;
    case 'conjunction':
      if (a.clause < 1 || a.clause > a.nClauses || a.nClauses < 2 || a.nClauses > 64) {
        throw new OfEncodeError(`bad conjunction clause ${a.clause}/${a.nClauses}`);
      }
      nxHeader(w, NXAST.CONJUNCTION);
      w.u8(a.clause - 1)
        .u8(a.nClauses)
        .u32(a.id);
      finishAction(w, start);
      return;
    case 'ct':
      encodeCt(w, a);
      return;
    case 'ct_clear':
      nxHeader(w, NXAST.CT_CLEAR);
      finishAction(w, start);
      return;
    case 'exit':
      nxHeader(w, NXAST.EXIT);
      finishAction(w, start);
      return;
    case 'controller':
      encodeController(w, a);
      return;
    case 'learn':
      encodeLearn(w, a);
      return;
    case 'note': {
      nxHeader(w, NXAST.NOTE);
      w.bytes(a.data);
      // nx_action_note is at least 16 bytes; OVS keeps the zero padding as part of the note.
      if (w.length - start < 16) w.zeros(16 - (w.length - start));
      finishAction(w, start);
      return;
    }
    case 'unknown':
      w.bytes(a.raw);
      return;
    default:
      throw new OfEncodeError(`${a.type} is an instruction, not an action`);
  }
}

const NXAST_OUTPUT_REG = 15;
/** OVS's 16-bit NXAC2PT properties carry 2 padding bytes inside their length (len 8). */
const OFPP_CONTROLLER = 0xfffffffd;

/** 32-bit reserved ports map to their 16-bit OpenFlow 1.0 forms in NX actions. */
function portTo16(p: number): number {
  if (p >= 0xffffff00) return p - 0xffff0000;
  if (p > 0xff00) throw new OfEncodeError(`port ${p} does not fit a 16-bit NX port`);
  return p;
}

function portFrom16(p: number): number {
  return p >= 0xff00 ? p + 0xffff0000 : p;
}

export function encodeActions(w: Writer, actions: readonly Action[]): void {
  for (const a of actions) encodeAction(w, a);
}

/** Encodes an action list with instruction pseudo-actions into OpenFlow instructions. */
export function encodeInstructions(w: Writer, actions: readonly Action[]): void {
  const apply = actions.filter((a) => !isInstruction(a));
  if (apply.length) {
    const s = w.length;
    w.u16(OFPIT.APPLY_ACTIONS).u16(0).zeros(4);
    encodeActions(w, apply);
    w.setU16(s + 2, w.length - s);
  }
  if (actions.some((a) => a.type === 'clear_actions')) w.u16(OFPIT.CLEAR_ACTIONS).u16(8).zeros(4);
  for (const a of actions) {
    if (a.type !== 'write_actions') continue;
    const s = w.length;
    w.u16(OFPIT.WRITE_ACTIONS).u16(0).zeros(4);
    encodeActions(w, a.actions);
    w.setU16(s + 2, w.length - s);
  }
  for (const a of actions) {
    if (a.type !== 'write_metadata') continue;
    w.u16(OFPIT.WRITE_METADATA)
      .u16(24)
      .zeros(4)
      .u64(a.value)
      .u64(a.mask ?? 0xffffffffffffffffn);
  }
  for (const a of actions) {
    if (a.type === 'goto_table') w.u16(OFPIT.GOTO_TABLE).u16(8).u8(a.table).zeros(3);
  }
}

export function encodeActionsToBuffer(actions: readonly Action[]): Buffer {
  const w = new Writer(64);
  encodeActions(w, actions);
  return w.finish();
}

// ---------------------------------------------------------------------------------------------
// Decoding.

function refField(header: number, start: number, nBits: number): Subfield {
  const f = fieldByHeader(header >>> 16, (header >>> 9) & 0x7f);
  if (!f) throw new OfDecodeError(`unknown field header 0x${header.toString(16)} in reference`);
  const name = f.name === 'in_port16' ? 'in_port' : f.name;
  if (nBits <= 0 || start + nBits > refWidth(name))
    throw new OfDecodeError(`bad bit range in reference to ${name}`);
  return { field: name, start, end: start + nBits - 1 };
}

function decodeNat(r: Reader): NatSpec {
  r.skip(2);
  const flags = r.u16();
  const present = r.u16();
  const nat: NatSpec = {};
  if (flags & NX_NAT_F.SRC) nat.kind = 'src';
  if (flags & NX_NAT_F.DST) nat.kind = 'dst';
  if (flags & NX_NAT_F.PERSISTENT) nat.persistent = true;
  if (flags & NX_NAT_F.PROTO_HASH) nat.hash = true;
  if (flags & NX_NAT_F.PROTO_RANDOM) nat.random = true;
  if (present & NX_NAT_RANGE.IPV4_MIN) nat.addrMin = formatIpv4(r.uint(4));
  if (present & NX_NAT_RANGE.IPV4_MAX) nat.addrMax = formatIpv4(r.uint(4));
  if (present & NX_NAT_RANGE.IPV6_MIN) nat.addrMin = formatIpv6(r.uint(16));
  if (present & NX_NAT_RANGE.IPV6_MAX) nat.addrMax = formatIpv6(r.uint(16));
  if (present & NX_NAT_RANGE.PROTO_MIN) nat.portMin = r.u16();
  if (present & NX_NAT_RANGE.PROTO_MAX) nat.portMax = r.u16();
  return nat;
}

function decodeLearn(r: Reader): LearnAction {
  const a: LearnAction = { type: 'learn', table: 0, specs: [] };
  const idle = r.u16();
  const hard = r.u16();
  const priority = r.u16();
  const cookie = r.u64();
  const flags = r.u16();
  a.table = r.u8();
  r.skip(1);
  const finIdle = r.u16();
  const finHard = r.u16();
  if (idle) a.idleTimeout = idle;
  if (hard) a.hardTimeout = hard;
  if (finIdle) a.finIdleTimeout = finIdle;
  if (finHard) a.finHardTimeout = finHard;
  if (priority !== 0x8000) a.priority = priority;
  if (cookie) a.cookie = cookie;
  if (flags & NX_LEARN_F.SEND_FLOW_REM) a.sendFlowRem = true;
  if (flags & NX_LEARN_F.DELETE_LEARNED) a.deleteLearned = true;
  while (r.remaining >= 2) {
    const header = r.u16();
    if (header === 0) break; // zero padding ends the spec list
    const nBits = header & 0x3ff;
    const immediate = (header & NX_LEARN_SRC_IMMEDIATE) !== 0;
    const dstType = header & (3 << 11);
    if (dstType === NX_LEARN_DST.OUTPUT) {
      const h = r.u32();
      a.specs.push({ kind: 'output', src: refField(h, r.u16(), nBits) });
      continue;
    }
    let src: Subfield | { value: bigint };
    if (immediate) {
      src = { value: r.uint(Math.ceil(nBits / 16) * 2) };
    } else {
      const h = r.u32();
      src = refField(h, r.u16(), nBits);
    }
    const dh = r.u32();
    const dst = refField(dh, r.u16(), nBits);
    if (dstType === NX_LEARN_DST.MATCH) a.specs.push({ kind: 'match', dst, src });
    else if (dstType === NX_LEARN_DST.LOAD) a.specs.push({ kind: 'load', dst, src });
    else throw new OfDecodeError(`reserved learn destination type in spec 0x${header.toString(16)}`);
  }
  return a;
}

function decodeController(r: Reader): ControllerAction {
  r.skip(6);
  const a: ControllerAction = { type: 'controller' };
  while (r.remaining >= 4) {
    const type = r.u16();
    const len = r.u16();
    if (len < 4) throw new OfDecodeError(`bad controller2 property length ${len}`);
    const body = r.sub(len - 4, 'controller2 property');
    r.skip(Math.min(r.remaining, (8 - (len % 8)) % 8));
    switch (type) {
      case NXAC2PT.MAX_LEN:
        a.maxLen = body.u16();
        break;
      case NXAC2PT.CONTROLLER_ID:
        a.controllerId = body.u16();
        break;
      case NXAC2PT.REASON: {
        const code = body.u8();
        const name = (Object.keys(OFPR) as PacketInReason[]).find((k) => OFPR[k] === code);
        if (!name) throw new OfDecodeError(`unknown packet-in reason ${code}`);
        a.reason = name;
        break;
      }
      case NXAC2PT.USERDATA:
        a.userdata = Buffer.from(body.bytes(body.remaining));
        break;
      case NXAC2PT.PAUSE:
        a.pause = true;
        break;
      case NXAC2PT.METER_ID:
        a.meterId = body.u32();
        break;
      default:
        break;
    }
  }
  return a;
}

function decodeCt(r: Reader): CtAction {
  const a: CtAction = { type: 'ct' };
  const flags = r.u16();
  if (flags & NX_CT_F.COMMIT) a.commit = true;
  if (flags & NX_CT_F.FORCE) a.force = true;
  const zoneSrc = r.u32();
  const zone = r.u16();
  if (zoneSrc) a.zone = refField(zoneSrc, zone >> 6, (zone & 0x3f) + 1);
  else if (zone) a.zone = zone;
  const table = r.u8();
  if (table !== NX_CT_RECIRC_NONE) a.table = table;
  r.skip(3);
  const alg = r.u16();
  if (alg) a.alg = alg;
  const inner = decodeActions(r);
  const exec: Action[] = [];
  for (const x of inner) {
    if (x.type === 'nat_internal' && a.nat === undefined && exec.length === 0) a.nat = x.nat;
    else if (x.type === 'nat_internal') throw new OfDecodeError('nat inside ct must come first');
    else exec.push(x);
  }
  if (exec.length) a.exec = exec;
  return a;
}

type DecodedAction = Action | { type: 'nat_internal'; nat: NatSpec };

function decodeNx(r: Reader, raw: Buffer): DecodedAction {
  const subtype = r.u16();
  switch (subtype) {
    case NXAST.RESUBMIT:
    case NXAST.RESUBMIT_TABLE:
    case NXAST.RESUBMIT_TABLE_CT: {
      const port = r.u16();
      const a: Action = { type: 'resubmit' };
      if (port !== 0xfff8) a.port = portFrom16(port);
      if (subtype !== NXAST.RESUBMIT) {
        const table = r.u8();
        if (table !== 0xff) a.table = table;
      }
      if (subtype === NXAST.RESUBMIT_TABLE_CT) a.ct = true;
      return a;
    }
    case NXAST.CONJUNCTION: {
      const clause = r.u8();
      const n = r.u8();
      return { type: 'conjunction', clause: clause + 1, nClauses: n, id: r.u32() };
    }
    case NXAST.CT:
      return decodeCt(r);
    case NXAST.NAT:
      return { type: 'nat_internal', nat: decodeNat(r) };
    case NXAST.CT_CLEAR:
      return { type: 'ct_clear' };
    case NXAST.EXIT:
      return { type: 'exit' };
    case NXAST.CONTROLLER2:
      return decodeController(r);
    case NXAST.LEARN:
      return decodeLearn(r);
    case NXAST.NOTE:
      return { type: 'note', data: Buffer.from(r.bytes(r.remaining)) };
    case NXAST_OUTPUT_REG: {
      const on = r.u16();
      const h = r.u32();
      const maxLen = r.u16();
      return {
        type: 'output_reg',
        src: refField(h, on >> 6, (on & 0x3f) + 1),
        ...(maxLen !== OFPCML_NO_BUFFER ? { maxLen } : {}),
      };
    }
    case NXAST.DEC_TTL_CNT_IDS:
      return { type: 'dec_ttl' };
    default:
      return { type: 'unknown', raw: Buffer.from(raw) };
  }
}

function decodeOne(r: Reader): DecodedAction {
  const start = r.pos;
  const type = r.u16();
  const len = r.u16();
  if (len < 8 || len % 8 !== 0) throw new OfDecodeError(`bad action length ${len} (type ${type})`);
  r.pos = start;
  const raw = r.bytes(len, 'action');
  const b = new Reader(raw, 4);
  switch (type) {
    case OFPAT.OUTPUT: {
      const port = b.u32();
      const maxLen = b.u16();
      const isDefault = port === OFPP_CONTROLLER ? maxLen === OFPCML_NO_BUFFER : maxLen === 0;
      return { type: 'output', port, ...(isDefault ? {} : { maxLen }) };
    }
    case OFPAT.GROUP:
      return { type: 'group', groupId: b.u32() };
    case OFPAT.DEC_NW_TTL:
      return { type: 'dec_ttl' };
    case OFPAT.PUSH_VLAN:
      return { type: 'push_vlan', ethertype: b.u16() };
    case OFPAT.POP_VLAN:
      return { type: 'pop_vlan' };
    case OFPAT.METER:
      return { type: 'meter', meterId: b.u32() };
    case OFPAT.SET_FIELD: {
      const mf = decodeOxmField(b);
      return {
        type: 'set_field',
        field: mf.field,
        value: mf.value,
        ...(mf.mask !== undefined ? { mask: mf.mask } : {}),
      };
    }
    case OFPAT.COPY_FIELD: {
      const nBits = b.u16();
      const srcOfs = b.u16();
      const dstOfs = b.u16();
      b.skip(2);
      const sh = b.u32();
      const dh = b.u32();
      return { type: 'move', src: refField(sh, srcOfs, nBits), dst: refField(dh, dstOfs, nBits) };
    }
    case OFPAT.EXPERIMENTER: {
      const vendor = b.u32();
      if (vendor !== NX_VENDOR_ID) return { type: 'unknown', raw: Buffer.from(raw) };
      return decodeNx(b, raw);
    }
    default:
      return { type: 'unknown', raw: Buffer.from(raw) };
  }
}

function decodeActions(r: Reader): DecodedAction[] {
  const out: DecodedAction[] = [];
  while (r.remaining > 0) out.push(decodeOne(r));
  return out;
}

/** Decodes an action list (as in apply/write actions, buckets, packet-out). */
export function decodeActionList(r: Reader): Action[] {
  const out: Action[] = [];
  for (const a of decodeActions(r)) {
    if (a.type === 'nat_internal') throw new OfDecodeError('nat action outside ct');
    out.push(a);
  }
  return out;
}

/** Decodes an instruction list into the flat action list used by this package. */
export function decodeInstructions(r: Reader): Action[] {
  const apply: Action[] = [];
  const rest: Action[] = [];
  while (r.remaining > 0) {
    const type = r.u16();
    const len = r.u16();
    if (len < 8 || len % 8 !== 0) throw new OfDecodeError(`bad instruction length ${len} (type ${type})`);
    const b = r.sub(len - 4, 'instruction');
    switch (type) {
      case OFPIT.APPLY_ACTIONS:
        b.skip(4);
        apply.push(...decodeActionList(b));
        break;
      case OFPIT.WRITE_ACTIONS:
        b.skip(4);
        rest.push({ type: 'write_actions', actions: decodeActionList(b) });
        break;
      case OFPIT.CLEAR_ACTIONS:
        rest.push({ type: 'clear_actions' });
        break;
      case OFPIT.GOTO_TABLE:
        rest.push({ type: 'goto_table', table: b.u8() });
        break;
      case OFPIT.WRITE_METADATA: {
        b.skip(4);
        const value = b.u64();
        const mask = b.u64();
        rest.push({ type: 'write_metadata', value, ...(mask !== 0xffffffffffffffffn ? { mask } : {}) });
        break;
      }
      default:
        throw new OfDecodeError(`unsupported instruction type ${type}`);
    }
  }
  const order = ['clear_actions', 'write_actions', 'write_metadata', 'goto_table'];
  rest.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  return [...apply, ...rest];
}
