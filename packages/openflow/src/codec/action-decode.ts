import { OfDecodeError } from '../errors.js';
import {
  type Action,
  type ControllerAction,
  type CtAction,
  type LearnAction,
  type NatSpec,
  refWidth,
  type Subfield,
} from './actions.js';
import { Reader } from './buffer.js';
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
  type PacketInReason,
} from './constants.js';
import { fieldByHeader, formatIpv4, formatIpv6 } from './fields.js';
import { decodeOxmField } from './match.js';

const OFPP_CONTROLLER = OFPP.CONTROLLER;

function portFrom16(p: number): number {
  return p >= 0xff00 ? p + 0xffff0000 : p;
}

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
    case NXAST.OUTPUT_REG: {
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
