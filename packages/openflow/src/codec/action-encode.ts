import { OfEncodeError } from '../errors.js';
import {
  type Action,
  type ControllerAction,
  type CtAction,
  isInstruction,
  type LearnAction,
  type LearnSpec,
  type NatSpec,
  refWidth,
  type Subfield,
} from './actions.js';
import { Writer } from './buffer.js';
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
  OFPP,
  OFPR,
} from './constants.js';
import {
  type FieldDef,
  refHeader as fieldRefHeader,
  getField,
  ipv4ToBigint,
  ipv6ToBigint,
} from './fields.js';
import { encodeOxmField, normalizeField } from './match.js';

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
      nxHeader(w, NXAST.OUTPUT_REG);
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

const OFPP_CONTROLLER = OFPP.CONTROLLER;

/** 32-bit reserved ports map to their 16-bit OpenFlow 1.0 forms in NX actions. */
function portTo16(p: number): number {
  if (p >= 0xffffff00) return p - 0xffff0000;
  if (p > 0xff00) throw new OfEncodeError(`port ${p} does not fit a 16-bit NX port`);
  return p;
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
