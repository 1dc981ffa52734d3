/** Wire constants of OpenFlow 1.5.1 and the Nicira/ONF extensions implemented by Open vSwitch. */

export const OFP_VERSION_15 = 0x06;
export const OFP_HEADER_LEN = 8;
/** OpenFlow messages carry a 16-bit length. */
export const OFP_MAX_MESSAGE_LEN = 0xffff;

export const OFPT = {
  HELLO: 0,
  ERROR: 1,
  ECHO_REQUEST: 2,
  ECHO_REPLY: 3,
  EXPERIMENTER: 4,
  FEATURES_REQUEST: 5,
  FEATURES_REPLY: 6,
  GET_CONFIG_REQUEST: 7,
  GET_CONFIG_REPLY: 8,
  SET_CONFIG: 9,
  PACKET_IN: 10,
  FLOW_REMOVED: 11,
  PORT_STATUS: 12,
  PACKET_OUT: 13,
  FLOW_MOD: 14,
  GROUP_MOD: 15,
  PORT_MOD: 16,
  TABLE_MOD: 17,
  MULTIPART_REQUEST: 18,
  MULTIPART_REPLY: 19,
  BARRIER_REQUEST: 20,
  BARRIER_REPLY: 21,
  ROLE_REQUEST: 24,
  ROLE_REPLY: 25,
  GET_ASYNC_REQUEST: 26,
  GET_ASYNC_REPLY: 27,
  SET_ASYNC: 28,
  METER_MOD: 29,
  ROLE_STATUS: 30,
  TABLE_STATUS: 31,
  REQUESTFORWARD: 32,
  BUNDLE_CONTROL: 33,
  BUNDLE_ADD_MESSAGE: 34,
} as const;

/** Vendor (experimenter) ids. */
export const NX_VENDOR_ID = 0x00002320;
export const ONF_VENDOR_ID = 0x4f4e4600;

/** Nicira experimenter message subtypes (carried in OFPT_EXPERIMENTER). */
export const NXT = {
  SET_PACKET_IN_FORMAT: 16,
  SET_CONTROLLER_ID: 20,
  RESUME: 28,
  PACKET_IN2: 30,
} as const;

/** nx_packet_in_format values for NXT_SET_PACKET_IN_FORMAT. */
export const NXPIF = { STANDARD: 0, NXT_PACKET_IN: 1, NXT_PACKET_IN2: 2 } as const;

/** Reserved port numbers (32-bit, OF1.1+). */
export const OFPP = {
  MAX: 0xffffff00,
  UNSET: 0xfffffff7,
  IN_PORT: 0xfffffff8,
  TABLE: 0xfffffff9,
  NORMAL: 0xfffffffa,
  FLOOD: 0xfffffffb,
  ALL: 0xfffffffc,
  CONTROLLER: 0xfffffffd,
  LOCAL: 0xfffffffe,
  ANY: 0xffffffff,
} as const;

export const OFPG = { MAX: 0xffffff00, ALL: 0xfffffffc, ANY: 0xffffffff } as const;
export const OFPM = {
  MAX: 0xffff0000,
  SLOWPATH: 0xfffffffd,
  CONTROLLER: 0xfffffffe,
  ALL: 0xffffffff,
} as const;
export const OFPTT_ALL = 0xff;
export const OFP_NO_BUFFER = 0xffffffff;
export const OFP_DEFAULT_PRIORITY = 0x8000;
export const OFPCML_NO_BUFFER = 0xffff;

export const OFPFC = { ADD: 0, MODIFY: 1, MODIFY_STRICT: 2, DELETE: 3, DELETE_STRICT: 4 } as const;
export type FlowModCommand = keyof typeof OFPFC;

export const OFPFF = {
  SEND_FLOW_REM: 1 << 0,
  CHECK_OVERLAP: 1 << 1,
  RESET_COUNTS: 1 << 2,
  NO_PKT_COUNTS: 1 << 3,
  NO_BYT_COUNTS: 1 << 4,
} as const;

/** ADD_OR_MOD is OVS's extension (OFPGC11_ADD_OR_MOD): creates the group or replaces it in place. */
export const OFPGC = {
  ADD: 0,
  MODIFY: 1,
  DELETE: 2,
  INSERT_BUCKET: 3,
  REMOVE_BUCKET: 5,
  ADD_OR_MOD: 0x8000,
} as const;
export type GroupModCommand = keyof typeof OFPGC;
export const OFPGT = { all: 0, select: 1, indirect: 2, ff: 3 } as const;
export type GroupType = keyof typeof OFPGT;
export const OFPGBPT = { WEIGHT: 0, WATCH_PORT: 1, WATCH_GROUP: 2 } as const;
/** OFPG15_BUCKET_ALL: addresses every bucket (used as command_bucket_id for ADD/MODIFY/DELETE). */
export const OFPG_BUCKET_ALL = 0xffffffff;

export const OFPMC = { ADD: 0, MODIFY: 1, DELETE: 2 } as const;
export type MeterModCommand = keyof typeof OFPMC;
export const OFPMF = { KBPS: 1 << 0, PKTPS: 1 << 1, BURST: 1 << 2, STATS: 1 << 3 } as const;
export const OFPMBT = { DROP: 1, DSCP_REMARK: 2 } as const;

export const OFPBCT = {
  OPEN_REQUEST: 0,
  OPEN_REPLY: 1,
  CLOSE_REQUEST: 2,
  CLOSE_REPLY: 3,
  COMMIT_REQUEST: 4,
  COMMIT_REPLY: 5,
  DISCARD_REQUEST: 6,
  DISCARD_REPLY: 7,
} as const;
export const OFPBF = { ATOMIC: 1 << 0, ORDERED: 1 << 1 } as const;

export const OFPMP = {
  DESC: 0,
  FLOW_DESC: 1,
  AGGREGATE_STATS: 2,
  TABLE_STATS: 3,
  PORT_STATS: 4,
  GROUP_STATS: 6,
  GROUP_DESC: 7,
  METER_STATS: 9,
  METER_CONFIG: 10,
  PORT_DESC: 13,
  FLOW_STATS: 17,
} as const;
export const OFPMPF_MORE = 1 << 0;

/** Instruction types. */
export const OFPIT = {
  GOTO_TABLE: 1,
  WRITE_METADATA: 2,
  WRITE_ACTIONS: 3,
  APPLY_ACTIONS: 4,
  CLEAR_ACTIONS: 5,
  STAT_TRIGGER: 7,
} as const;

/** Standard action types. */
export const OFPAT = {
  OUTPUT: 0,
  COPY_TTL_OUT: 11,
  COPY_TTL_IN: 12,
  SET_MPLS_TTL: 15,
  DEC_MPLS_TTL: 16,
  PUSH_VLAN: 17,
  POP_VLAN: 18,
  SET_QUEUE: 21,
  GROUP: 22,
  SET_NW_TTL: 23,
  DEC_NW_TTL: 24,
  SET_FIELD: 25,
  COPY_FIELD: 28,
  METER: 29,
  EXPERIMENTER: 0xffff,
} as const;

/** Nicira action subtypes (OFPAT_EXPERIMENTER with NX_VENDOR_ID). */
export const NXAST = {
  RESUBMIT: 1,
  REG_MOVE: 6,
  REG_LOAD: 7,
  NOTE: 8,
  OUTPUT_REG: 15,
  RESUBMIT_TABLE: 14,
  LEARN: 16,
  EXIT: 17,
  DEC_TTL_CNT_IDS: 21,
  REG_LOAD2: 33,
  CONJUNCTION: 34,
  CT: 35,
  NAT: 36,
  CONTROLLER2: 37,
  CT_CLEAR: 43,
  RESUBMIT_TABLE_CT: 44,
} as const;

export const NX_CT_F = { COMMIT: 1 << 0, FORCE: 1 << 1 } as const;
/** recirc_table value meaning "do not recirculate" (OFPTT_ALL). */
export const NX_CT_RECIRC_NONE = 0xff;
export const NX_NAT_F = {
  SRC: 1 << 0,
  DST: 1 << 1,
  PERSISTENT: 1 << 2,
  PROTO_HASH: 1 << 3,
  PROTO_RANDOM: 1 << 4,
} as const;
export const NX_NAT_RANGE = {
  IPV4_MIN: 1 << 0,
  IPV4_MAX: 1 << 1,
  IPV6_MIN: 1 << 2,
  IPV6_MAX: 1 << 3,
  PROTO_MIN: 1 << 4,
  PROTO_MAX: 1 << 5,
} as const;
export const NX_LEARN_F = { SEND_FLOW_REM: 1 << 0, DELETE_LEARNED: 1 << 1, WRITE_RESULT: 1 << 2 } as const;
export const NX_LEARN_SRC_IMMEDIATE = 1 << 13;
export const NX_LEARN_DST = { MATCH: 0 << 11, LOAD: 1 << 11, OUTPUT: 2 << 11 } as const;

/** NXAST_CONTROLLER2 property types. */
export const NXAC2PT = {
  MAX_LEN: 0,
  CONTROLLER_ID: 1,
  REASON: 2,
  USERDATA: 3,
  PAUSE: 4,
  METER_ID: 5,
} as const;
/** NXT_PACKET_IN2 property types. */
export const NXPINT = {
  PACKET: 0,
  FULL_LEN: 1,
  BUFFER_ID: 2,
  TABLE_ID: 3,
  COOKIE: 4,
  REASON: 5,
  METADATA: 6,
  USERDATA: 7,
  CONTINUATION: 8,
} as const;

/** Packet-in reasons (OFPR_*). */
export const OFPR = {
  no_match: 0,
  action: 1,
  invalid_ttl: 2,
  action_set: 3,
  group: 4,
  packet_out: 5,
} as const;
export type PacketInReason = keyof typeof OFPR;

/** OFPT_SET_ASYNC property types (OF1.4+). */
export const OFPACPT = {
  PACKET_IN_SLAVE: 0,
  PACKET_IN_MASTER: 1,
  PORT_STATUS_SLAVE: 2,
  PORT_STATUS_MASTER: 3,
  FLOW_REMOVED_SLAVE: 4,
  FLOW_REMOVED_MASTER: 5,
  ROLE_STATUS_SLAVE: 6,
  ROLE_STATUS_MASTER: 7,
  TABLE_STATUS_SLAVE: 8,
  TABLE_STATUS_MASTER: 9,
  REQUESTFORWARD_SLAVE: 10,
  REQUESTFORWARD_MASTER: 11,
} as const;

export const OFPET_NAMES: Record<number, string> = {
  0: 'OFPET_HELLO_FAILED',
  1: 'OFPET_BAD_REQUEST',
  2: 'OFPET_BAD_ACTION',
  3: 'OFPET_BAD_INSTRUCTION',
  4: 'OFPET_BAD_MATCH',
  5: 'OFPET_FLOW_MOD_FAILED',
  6: 'OFPET_GROUP_MOD_FAILED',
  7: 'OFPET_PORT_MOD_FAILED',
  8: 'OFPET_TABLE_MOD_FAILED',
  9: 'OFPET_QUEUE_OP_FAILED',
  10: 'OFPET_SWITCH_CONFIG_FAILED',
  11: 'OFPET_ROLE_REQUEST_FAILED',
  12: 'OFPET_METER_MOD_FAILED',
  13: 'OFPET_TABLE_FEATURES_FAILED',
  14: 'OFPET_BAD_PROPERTY',
  15: 'OFPET_ASYNC_CONFIG_FAILED',
  16: 'OFPET_FLOW_MONITOR_FAILED',
  17: 'OFPET_BUNDLE_FAILED',
  65535: 'OFPET_EXPERIMENTER',
};

/** (type, code) -> OVS error name for errors an OpenFlow 1.5 switch can send (from the OF1.5 spec / OVS catalogue). */
const ERROR_TABLE: ReadonlyArray<readonly [number, number, string]> = [
  [0, 0, 'OFPHFC_INCOMPATIBLE'],
  [0, 1, 'OFPHFC_EPERM'],
  [1, 0, 'OFPBRC_BAD_VERSION'],
  [1, 1, 'OFPBRC_BAD_TYPE'],
  [1, 2, 'OFPBRC_BAD_STAT'],
  [1, 3, 'OFPBRC_BAD_VENDOR'],
  [1, 4, 'OFPBRC_BAD_SUBTYPE'],
  [1, 5, 'OFPBRC_EPERM'],
  [1, 6, 'OFPBRC_BAD_LEN'],
  [1, 7, 'OFPBRC_BUFFER_EMPTY'],
  [1, 8, 'OFPBRC_BUFFER_UNKNOWN'],
  [1, 9, 'OFPBRC_BAD_TABLE_ID'],
  [1, 10, 'OFPBRC_IS_SECONDARY'],
  [1, 11, 'OFPBRC_BAD_PORT'],
  [1, 12, 'OFPBRC_BAD_PACKET'],
  [1, 13, 'OFPBRC_MULTIPART_BUFFER_OVERFLOW'],
  [1, 14, 'OFPBRC_MULTIPART_REQUEST_TIMEOUT'],
  [1, 15, 'OFPBRC_MULTIPART_REPLY_TIMEOUT'],
  [1, 16, 'OFPBRC_MULTIPART_BAD_SCHED'],
  [1, 17, 'OFPBRC_PIPELINE_FIELDS_ONLY'],
  [1, 18, 'OFPBRC_UNKNOWN'],
  [2, 0, 'OFPBAC_BAD_TYPE'],
  [2, 1, 'OFPBAC_BAD_LEN'],
  [2, 2, 'OFPBAC_BAD_VENDOR'],
  [2, 3, 'OFPBAC_BAD_VENDOR_TYPE'],
  [2, 4, 'OFPBAC_BAD_OUT_PORT'],
  [2, 5, 'OFPBAC_BAD_ARGUMENT'],
  [2, 6, 'OFPBAC_EPERM'],
  [2, 7, 'OFPBAC_TOO_MANY'],
  [2, 8, 'OFPBAC_BAD_QUEUE'],
  [2, 9, 'OFPBAC_BAD_OUT_GROUP'],
  [2, 10, 'OFPBAC_MATCH_INCONSISTENT'],
  [2, 11, 'OFPBAC_UNSUPPORTED_ORDER'],
  [2, 12, 'OFPBAC_BAD_TAG'],
  [2, 13, 'OFPBAC_BAD_SET_TYPE'],
  [2, 14, 'OFPBAC_BAD_SET_LEN'],
  [2, 15, 'OFPBAC_BAD_SET_ARGUMENT'],
  [2, 16, 'OFPBAC_BAD_SET_MASK'],
  [2, 17, 'OFPBAC_BAD_METER'],
  [3, 0, 'OFPBIC_UNKNOWN_INST'],
  [3, 1, 'OFPBIC_UNSUP_INST'],
  [3, 2, 'OFPBIC_BAD_TABLE_ID'],
  [3, 3, 'OFPBIC_UNSUP_METADATA'],
  [3, 4, 'OFPBIC_UNSUP_METADATA_MASK'],
  [3, 5, 'OFPBIC_BAD_EXPERIMENTER'],
  [3, 6, 'OFPBIC_BAD_EXP_TYPE'],
  [3, 7, 'OFPBIC_BAD_LEN'],
  [3, 8, 'OFPBIC_EPERM'],
  [3, 9, 'OFPBIC_DUP_INST'],
  [4, 0, 'OFPBMC_BAD_TYPE'],
  [4, 1, 'OFPBMC_BAD_LEN'],
  [4, 2, 'OFPBMC_BAD_TAG'],
  [4, 3, 'OFPBMC_BAD_DL_ADDR_MASK'],
  [4, 4, 'OFPBMC_BAD_NW_ADDR_MASK'],
  [4, 5, 'OFPBMC_BAD_WILDCARDS'],
  [4, 6, 'OFPBMC_BAD_FIELD'],
  [4, 7, 'OFPBMC_BAD_VALUE'],
  [4, 8, 'OFPBMC_BAD_MASK'],
  [4, 9, 'OFPBMC_BAD_PREREQ'],
  [4, 10, 'OFPBMC_DUP_FIELD'],
  [4, 11, 'OFPBMC_EPERM'],
  [5, 0, 'OFPFMFC_UNKNOWN'],
  [5, 1, 'OFPFMFC_TABLE_FULL'],
  [5, 2, 'OFPFMFC_BAD_TABLE_ID'],
  [5, 3, 'OFPFMFC_OVERLAP'],
  [5, 4, 'OFPFMFC_EPERM'],
  [5, 5, 'OFPFMFC_BAD_TIMEOUT'],
  [5, 6, 'OFPFMFC_BAD_COMMAND'],
  [5, 7, 'OFPFMFC_BAD_FLAGS'],
  [5, 8, 'OFPFMFC_CANT_SYNC'],
  [5, 9, 'OFPFMFC_BAD_PRIORITY'],
  [5, 10, 'OFPFMFC_IS_SYNC'],
  [6, 0, 'OFPGMFC_GROUP_EXISTS'],
  [6, 1, 'OFPGMFC_INVALID_GROUP'],
  [6, 2, 'OFPGMFC_WEIGHT_UNSUPPORTED'],
  [6, 3, 'OFPGMFC_OUT_OF_GROUPS'],
  [6, 4, 'OFPGMFC_OUT_OF_BUCKETS'],
  [6, 5, 'OFPGMFC_CHAINING_UNSUPPORTED'],
  [6, 6, 'OFPGMFC_WATCH_UNSUPPORTED'],
  [6, 7, 'OFPGMFC_LOOP'],
  [6, 8, 'OFPGMFC_UNKNOWN_GROUP'],
  [6, 9, 'OFPGMFC_CHAINED_GROUP'],
  [6, 10, 'OFPGMFC_BAD_TYPE'],
  [6, 11, 'OFPGMFC_BAD_COMMAND'],
  [6, 12, 'OFPGMFC_BAD_BUCKET'],
  [6, 13, 'OFPGMFC_BAD_WATCH'],
  [6, 14, 'OFPGMFC_EPERM'],
  [6, 15, 'OFPGMFC_UNKNOWN_BUCKET'],
  [6, 16, 'OFPGMFC_BUCKET_EXISTS'],
  [7, 0, 'OFPPMFC_BAD_PORT'],
  [7, 1, 'OFPPMFC_BAD_HW_ADDR'],
  [7, 2, 'OFPPMFC_BAD_CONFIG'],
  [7, 3, 'OFPPMFC_BAD_ADVERTISE'],
  [7, 4, 'OFPPMFC_EPERM'],
  [8, 0, 'OFPTMFC_BAD_TABLE'],
  [8, 1, 'OFPTMFC_BAD_CONFIG'],
  [8, 2, 'OFPTMFC_EPERM'],
  [9, 0, 'OFPQOFC_BAD_PORT'],
  [9, 1, 'OFPQOFC_BAD_QUEUE'],
  [9, 2, 'OFPQOFC_EPERM'],
  [10, 0, 'OFPSCFC_BAD_FLAGS'],
  [10, 1, 'OFPSCFC_BAD_LEN'],
  [10, 2, 'OFPSCFC_EPERM'],
  [11, 0, 'OFPRRFC_STALE'],
  [11, 1, 'OFPRRFC_UNSUP'],
  [11, 2, 'OFPRRFC_BAD_ROLE'],
  [11, 3, 'OFPRRFC_ID_UNSUP'],
  [11, 4, 'OFPRRFC_ID_IN_USE'],
  [12, 0, 'OFPMMFC_UNKNOWN'],
  [12, 1, 'OFPMMFC_METER_EXISTS'],
  [12, 2, 'OFPMMFC_INVALID_METER'],
  [12, 3, 'OFPMMFC_UNKNOWN_METER'],
  [12, 4, 'OFPMMFC_BAD_COMMAND'],
  [12, 5, 'OFPMMFC_BAD_FLAGS'],
  [12, 6, 'OFPMMFC_BAD_RATE'],
  [12, 7, 'OFPMMFC_BAD_BURST'],
  [12, 8, 'OFPMMFC_BAD_BAND'],
  [12, 9, 'OFPMMFC_BAD_BAND_VALUE'],
  [12, 10, 'OFPMMFC_OUT_OF_METERS'],
  [12, 11, 'OFPMMFC_OUT_OF_BANDS'],
  [13, 0, 'OFPTFFC_BAD_TABLE'],
  [13, 1, 'OFPTFFC_BAD_METADATA'],
  [13, 5, 'OFPTFFC_EPERM'],
  [13, 6, 'OFPTFFC_BAD_CAPA'],
  [13, 7, 'OFPTFFC_BAD_MAX_ENT'],
  [13, 8, 'OFPTFFC_BAD_FEATURES'],
  [13, 9, 'OFPTFFC_BAD_COMMAND'],
  [13, 10, 'OFPTFFC_TOO_MANY'],
  [14, 0, 'OFPBPC_BAD_TYPE'],
  [14, 1, 'OFPBPC_BAD_LEN'],
  [14, 2, 'OFPBPC_BAD_VALUE'],
  [14, 3, 'OFPBPC_TOO_MANY'],
  [14, 4, 'OFPBPC_DUP_TYPE'],
  [14, 5, 'OFPBPC_BAD_EXPERIMENTER'],
  [14, 6, 'OFPBPC_BAD_EXP_TYPE'],
  [14, 7, 'OFPBPC_BAD_EXP_VALUE'],
  [14, 8, 'OFPBPC_EPERM'],
  [15, 0, 'OFPACFC_INVALID'],
  [15, 1, 'OFPACFC_UNSUPPORTED'],
  [15, 2, 'OFPACFC_EPERM'],
  [17, 0, 'OFPBFC_UNKNOWN'],
  [17, 1, 'OFPBFC_EPERM'],
  [17, 2, 'OFPBFC_BAD_ID'],
  [17, 3, 'OFPBFC_BUNDLE_EXIST'],
  [17, 4, 'OFPBFC_BUNDLE_CLOSED'],
  [17, 5, 'OFPBFC_OUT_OF_BUNDLES'],
  [17, 6, 'OFPBFC_BAD_TYPE'],
  [17, 7, 'OFPBFC_BAD_FLAGS'],
  [17, 8, 'OFPBFC_MSG_BAD_LEN'],
  [17, 9, 'OFPBFC_MSG_BAD_XID'],
  [17, 10, 'OFPBFC_MSG_UNSUP'],
  [17, 11, 'OFPBFC_MSG_CONFLICT'],
  [17, 12, 'OFPBFC_MSG_TOO_MANY'],
  [17, 13, 'OFPBFC_MSG_FAILED'],
  [17, 14, 'OFPBFC_TIMEOUT'],
  [17, 15, 'OFPBFC_BUNDLE_IN_PROGRESS'],
  [17, 16, 'OFPBFC_SCHED_NOT_SUPPORTED'],
  [17, 17, 'OFPBFC_SCHED_FUTURE'],
  [17, 18, 'OFPBFC_SCHED_PAST'],
  [16, 0, 'OFPMOFC_UNKNOWN'],
  [16, 1, 'OFPMOFC_MONITOR_EXISTS'],
  [16, 2, 'OFPMOFC_INVALID_MONITOR'],
  [16, 3, 'OFPMOFC_UNKNOWN_MONITOR'],
  [16, 4, 'OFPMOFC_BAD_COMMAND'],
  [16, 5, 'OFPMOFC_BAD_FLAGS'],
  [16, 6, 'OFPMOFC_BAD_TABLE_ID'],
  [16, 7, 'OFPMOFC_BAD_OUT'],
];

const ERROR_NAMES = new Map<number, string>(ERROR_TABLE.map(([t, c, n]) => [t * 0x10000 + c, n]));

/** Human name of an OpenFlow error, e.g. `OFPBAC_BAD_OUT_PORT`; falls back to numbers. */
export function errorName(type: number, code: number): string {
  return ERROR_NAMES.get(type * 0x10000 + code) ?? `${OFPET_NAMES[type] ?? `type ${type}`} code ${code}`;
}
