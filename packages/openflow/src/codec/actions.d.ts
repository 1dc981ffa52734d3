import { Reader, Writer } from './buffer.js';
import { type PacketInReason } from './constants.js';
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
  | {
      kind: 'match';
      dst: Subfield;
      src:
        | Subfield
        | {
            value: bigint;
          };
    }
  | {
      kind: 'load';
      dst: Subfield;
      src:
        | Subfield
        | {
            value: bigint;
          };
    }
  | {
      kind: 'output';
      src: Subfield;
    };
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
  | {
      type: 'output';
      port: number;
      maxLen?: number;
    }
  | {
      type: 'output_reg';
      src: Subfield;
      maxLen?: number;
    }
  | {
      type: 'group';
      groupId: number;
    }
  | {
      type: 'set_field';
      field: string;
      value: bigint;
      mask?: bigint;
    }
  | {
      type: 'move';
      src: Subfield;
      dst: Subfield;
    }
  | {
      type: 'resubmit';
      port?: number;
      table?: number;
      ct?: boolean;
    }
  | {
      type: 'conjunction';
      id: number;
      clause: number;
      nClauses: number;
    }
  | CtAction
  | {
      type: 'ct_clear';
    }
  | {
      type: 'dec_ttl';
    }
  | ControllerAction
  | LearnAction
  | {
      type: 'note';
      data: Buffer;
    }
  | {
      type: 'push_vlan';
      ethertype: number;
    }
  | {
      type: 'pop_vlan';
    }
  | {
      type: 'meter';
      meterId: number;
    }
  | {
      type: 'exit';
    }
  | {
      type: 'unknown';
      raw: Buffer;
    }
  | {
      type: 'clear_actions';
    }
  | {
      type: 'write_actions';
      actions: Action[];
    }
  | {
      type: 'write_metadata';
      value: bigint;
      mask?: bigint;
    }
  | {
      type: 'goto_table';
      table: number;
    };
/** Width in bits of a field when referenced as a sub-field (in_port is the 16-bit NXM form there). */
export declare function refWidth(field: string): number;
export declare function subfield(field: string, start?: number, end?: number): Subfield;
/** `load:value->field[start..end]`; OpenFlow 1.5 carries it as a masked set_field. */
export declare function load(field: string, value: bigint | number, start?: number, end?: number): Action;
export declare function isInstruction(a: Action): boolean;
/** Encodes one action (not an instruction) into `w`. */
export declare function encodeAction(w: Writer, a: Action): void;
export declare function encodeActions(w: Writer, actions: readonly Action[]): void;
/** Encodes an action list with instruction pseudo-actions into OpenFlow instructions. */
export declare function encodeInstructions(w: Writer, actions: readonly Action[]): void;
export declare function encodeActionsToBuffer(actions: readonly Action[]): Buffer;
/** Decodes an action list (as in apply/write actions, buckets, packet-out). */
export declare function decodeActionList(r: Reader): Action[];
/** Decodes an instruction list into the flat action list used by this package. */
export declare function decodeInstructions(r: Reader): Action[];
//# sourceMappingURL=actions.d.ts.map
