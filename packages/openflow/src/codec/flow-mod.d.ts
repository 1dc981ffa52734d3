import { type Action } from './actions.js';
import { type FlowModCommand } from './constants.js';
import { type Match } from './match.js';
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
export declare function encodeFlowMod(xid: number, fm: FlowMod): Buffer;
export declare function decodeFlowMod(msg: Buffer): FlowMod;
//# sourceMappingURL=flow-mod.d.ts.map
