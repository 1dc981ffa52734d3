import { OfDecodeError } from '../errors.js';
import { decodeActionList } from './action-decode.js';
import { encodeActions } from './action-encode.js';
import type { Action } from './actions.js';
import { Reader } from './buffer.js';
import {
  NX_VENDOR_ID,
  NXPINT,
  NXT,
  OFP_NO_BUFFER,
  OFPP,
  OFPR,
  OFPT,
  type PacketInReason,
} from './constants.js';
import { beginMessage, beginNxMessage, decodeHeader, endMessage } from './header.js';
import { buildMatch, decodeMatch, decodeOxmList, encodeMatch, type Match } from './match.js';

export interface PacketIn2 {
  packet: Buffer;
  fullLen?: number;
  bufferId?: number;
  tableId?: number;
  cookie?: bigint;
  reason?: PacketInReason;
  /** Pipeline fields at the time of the packet-in (in_port, registers, conntrack state, ...). */
  metadata: Match;
  userdata?: Buffer;
  /** Opaque continuation for NXT_RESUME (set when the controller action paused). */
  continuation?: Buffer;
}

export function isPacketIn2(msg: Buffer): boolean {
  return (
    msg.length >= 16 &&
    msg[1] === OFPT.EXPERIMENTER &&
    msg.readUInt32BE(8) === NX_VENDOR_ID &&
    msg.readUInt32BE(12) === NXT.PACKET_IN2
  );
}

export function decodePacketIn2(msg: Buffer): PacketIn2 {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  if (r.u32() !== NX_VENDOR_ID || r.u32() !== NXT.PACKET_IN2)
    throw new OfDecodeError('not an NXT_PACKET_IN2');
  const out: PacketIn2 = { packet: Buffer.alloc(0), metadata: [] };
  let sawPacket = false;
  while (r.remaining >= 4) {
    const type = r.u16();
    const len = r.u16();
    if (len < 4) throw new OfDecodeError(`bad packet_in2 property length ${len}`);
    const p = r.sub(len - 4, 'packet_in2 property');
    r.skip(Math.min(r.remaining, (8 - (len % 8)) % 8));
    switch (type) {
      case NXPINT.PACKET:
        out.packet = Buffer.from(p.bytes(p.remaining));
        sawPacket = true;
        break;
      case NXPINT.FULL_LEN:
        out.fullLen = p.u32();
        break;
      case NXPINT.BUFFER_ID:
        out.bufferId = p.u32();
        break;
      case NXPINT.TABLE_ID:
        out.tableId = p.u8();
        break;
      case NXPINT.COOKIE:
        // The property body starts with 4 bytes of padding so the cookie is 64-bit aligned.
        p.skip(4);
        out.cookie = p.u64();
        break;
      case NXPINT.REASON: {
        const code = p.u8();
        out.reason = (Object.keys(OFPR) as PacketInReason[]).find((k) => OFPR[k] === code);
        break;
      }
      case NXPINT.METADATA:
        out.metadata = decodeOxmList(p);
        break;
      case NXPINT.USERDATA:
        out.userdata = Buffer.from(p.bytes(p.remaining));
        break;
      case NXPINT.CONTINUATION:
        out.continuation = Buffer.from(p.bytes(p.remaining));
        break;
      default:
        break;
    }
  }
  if (!sawPacket) throw new OfDecodeError('NXT_PACKET_IN2 without packet property');
  return out;
}

/** Encodes an NXT_PACKET_IN2 (for test doubles that play the switch). */
export function encodePacketIn2(xid: number, pi: PacketIn2): Buffer {
  return encodePacketInProps(NXT.PACKET_IN2, xid, pi);
}

/**
 * NXT_RESUME: hands a paused packet (one whose packet-in carries a continuation, from
 * controller(pause)) back to the switch, which continues the pipeline after the pause point.
 * Its properties are those of the packet-in that delivered it.
 */
export function encodeResume(xid: number, pi: PacketIn2): Buffer {
  if (!pi.continuation) throw new OfDecodeError('packet-in has no continuation to resume');
  return encodePacketInProps(NXT.RESUME, xid, pi);
}

function encodePacketInProps(subtype: number, xid: number, pi: PacketIn2): Buffer {
  const w = beginNxMessage(subtype, xid, pi.packet.length + 128);
  const prop = (type: number, body: () => void): void => {
    const s = w.length;
    w.u16(type).u16(0);
    body();
    w.setU16(s + 2, w.length - s);
    w.padTo(8, s);
  };
  prop(NXPINT.PACKET, () => w.bytes(pi.packet));
  if (pi.fullLen !== undefined) prop(NXPINT.FULL_LEN, () => w.u32(pi.fullLen!));
  if (pi.bufferId !== undefined) prop(NXPINT.BUFFER_ID, () => w.u32(pi.bufferId!));
  if (pi.tableId !== undefined) prop(NXPINT.TABLE_ID, () => w.u8(pi.tableId!));
  if (pi.cookie !== undefined) prop(NXPINT.COOKIE, () => w.zeros(4).u64(pi.cookie!));
  if (pi.reason !== undefined) prop(NXPINT.REASON, () => w.u8(OFPR[pi.reason!]));
  if (pi.metadata.length) {
    prop(NXPINT.METADATA, () => {
      const tmp = beginMessage(0, 0);
      const start = tmp.length;
      encodeMatch(tmp, pi.metadata);
      // NXPINT_METADATA carries bare OXM TLVs: drop the ofp_match header and padding.
      const m = tmp.finish().subarray(start);
      w.bytes(m.subarray(4, m.readUInt16BE(2)));
    });
  }
  if (pi.userdata) prop(NXPINT.USERDATA, () => w.bytes(pi.userdata!));
  if (pi.continuation) prop(NXPINT.CONTINUATION, () => w.bytes(pi.continuation!));
  return endMessage(w);
}

export interface PacketOut {
  inPort?: number;
  actions: Action[];
  packet: Buffer;
  bufferId?: number;
  /** Extra pipeline fields to set before executing the actions (OpenFlow 1.5 packet-out match). */
  match?: Match;
}

export function encodePacketOut(xid: number, po: PacketOut): Buffer {
  const w = beginMessage(OFPT.PACKET_OUT, xid, po.packet.length + 128);
  w.u32(po.bufferId ?? OFP_NO_BUFFER);
  const actionsLenAt = w.length;
  w.u16(0).zeros(2);
  const match = [...(po.match ?? []).filter((m) => m.field !== 'in_port')];
  match.unshift(...buildMatch({ in_port: po.inPort ?? OFPP.CONTROLLER }));
  encodeMatch(w, match);
  const actionsStart = w.length;
  encodeActions(w, po.actions);
  w.setU16(actionsLenAt, w.length - actionsStart);
  w.bytes(po.packet);
  return endMessage(w);
}

export function decodePacketOut(msg: Buffer): PacketOut {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const bufferId = r.u32();
  const actionsLen = r.u16();
  r.skip(2);
  const match = decodeMatch(r);
  const actions = decodeActionList(r.sub(actionsLen, 'packet_out actions'));
  const inPort = match.find((m) => m.field === 'in_port');
  const out: PacketOut = { actions, packet: Buffer.from(r.bytes(r.remaining)), bufferId };
  if (inPort) out.inPort = Number(inPort.value);
  const rest = match.filter((m) => m.field !== 'in_port');
  if (rest.length) out.match = rest;
  return out;
}
