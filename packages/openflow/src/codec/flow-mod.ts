import { OfDecodeError } from '../errors.js';
import { decodeInstructions } from './action-decode.js';
import { encodeInstructions } from './action-encode.js';
import type { Action } from './actions.js';
import { Reader, type Writer } from './buffer.js';
import {
  type FlowModCommand,
  OFP_DEFAULT_PRIORITY,
  OFP_NO_BUFFER,
  OFPFC,
  OFPG,
  OFPP,
  OFPT,
  OFPTT_ALL,
} from './constants.js';
import { beginMessage, decodeHeader, endMessage } from './header.js';
import { decodeMatch, encodeMatch, type Match } from './match.js';

/** A flow entry as installed or dumped. Defaults: table 0, priority 0x8000, cookie 0, permanent. */
export interface Flow {
  table?: number;
  priority?: number;
  cookie?: bigint;
  idleTimeout?: number;
  hardTimeout?: number;
  /** OFPFF_* bits. */
  flags?: number;
  importance?: number;
  match: Match;
  actions: Action[];
}

export interface FlowMod extends Flow {
  command: FlowModCommand;
  /** For MODIFY/DELETE: restricts to flows whose cookie matches under this mask. */
  cookieMask?: bigint;
  /** For DELETE: restricts to flows that output to this port / group. */
  outPort?: number;
  outGroup?: number;
  bufferId?: number;
}

const COMMAND_NAMES = Object.keys(OFPFC) as FlowModCommand[];

export function encodeFlowMod(xid: number, fm: FlowMod): Buffer {
  const w = beginMessage(OFPT.FLOW_MOD, xid, 256);
  writeFlowModBody(w, fm);
  return endMessage(w);
}

/** Writes the flow_mod body (everything after the header); lets bundles encode in place. */
export function writeFlowModBody(w: Writer, fm: FlowMod): void {
  const isDelete = fm.command === 'DELETE' || fm.command === 'DELETE_STRICT';
  w.u64(fm.cookie ?? 0n);
  w.u64(fm.cookieMask ?? 0n);
  // DELETE without a table means all tables.
  w.u8(fm.table ?? (isDelete ? OFPTT_ALL : 0));
  w.u8(OFPFC[fm.command]);
  w.u16(fm.idleTimeout ?? 0);
  w.u16(fm.hardTimeout ?? 0);
  w.u16(fm.priority ?? OFP_DEFAULT_PRIORITY);
  w.u32(fm.bufferId ?? OFP_NO_BUFFER);
  w.u32(fm.outPort ?? OFPP.ANY);
  w.u32(fm.outGroup ?? OFPG.ANY);
  w.u16(fm.flags ?? 0);
  w.u16(fm.importance ?? 0);
  encodeMatch(w, fm.match);
  if (!isDelete) encodeInstructions(w, fm.actions);
}

export function decodeFlowMod(msg: Buffer): FlowMod {
  const h = decodeHeader(msg);
  if (h.type !== OFPT.FLOW_MOD) throw new OfDecodeError(`not a flow_mod (type ${h.type})`);
  const r = new Reader(msg, 8, h.length);
  const cookie = r.u64();
  const cookieMask = r.u64();
  const table = r.u8();
  const cmd = r.u8();
  const command = COMMAND_NAMES[cmd];
  if (!command) throw new OfDecodeError(`bad flow_mod command ${cmd}`);
  const fm: FlowMod = {
    command,
    cookie,
    cookieMask,
    table,
    idleTimeout: r.u16(),
    hardTimeout: r.u16(),
    priority: r.u16(),
    bufferId: r.u32(),
    outPort: r.u32(),
    outGroup: r.u32(),
    flags: r.u16(),
    importance: r.u16(),
    match: [],
    actions: [],
  };
  fm.match = decodeMatch(r);
  fm.actions = decodeInstructions(r);
  return fm;
}
