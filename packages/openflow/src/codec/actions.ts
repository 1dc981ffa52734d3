import { OfEncodeError } from '../errors.js';
import type { PacketInReason } from './constants.js';
import { allOnes, getField } from './fields.js';

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
