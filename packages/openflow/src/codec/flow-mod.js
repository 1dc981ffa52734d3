import { OfDecodeError } from '../errors.js';
import { decodeInstructions, encodeInstructions } from './actions.js';
import { Reader } from './buffer.js';
import { OFP_DEFAULT_PRIORITY, OFP_NO_BUFFER, OFPFC, OFPG, OFPP, OFPT, OFPTT_ALL } from './constants.js';
import { beginMessage, decodeHeader, endMessage } from './header.js';
import { decodeMatch, encodeMatch } from './match.js';

const COMMAND_NAMES = Object.keys(OFPFC);
export function encodeFlowMod(xid, fm) {
  const w = beginMessage(OFPT.FLOW_MOD, xid, 256);
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
  return endMessage(w);
}
export function decodeFlowMod(msg) {
  const h = decodeHeader(msg);
  if (h.type !== OFPT.FLOW_MOD) throw new OfDecodeError(`not a flow_mod (type ${h.type})`);
  const r = new Reader(msg, 8, h.length);
  const cookie = r.u64();
  const cookieMask = r.u64();
  const table = r.u8();
  const cmd = r.u8();
  const command = COMMAND_NAMES[cmd];
  if (!command) throw new OfDecodeError(`bad flow_mod command ${cmd}`);
  const fm = {
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
//# sourceMappingURL=flow-mod.js.map
