/** Wire constants of OpenFlow 1.5.1 and the Nicira/ONF extensions implemented by Open vSwitch. */
export declare const OFP_VERSION_15 = 6;
export declare const OFP_HEADER_LEN = 8;
/** OpenFlow messages carry a 16-bit length. */
export declare const OFP_MAX_MESSAGE_LEN = 65535;
export declare const OFPT: {
  readonly HELLO: 0;
  readonly ERROR: 1;
  readonly ECHO_REQUEST: 2;
  readonly ECHO_REPLY: 3;
  readonly EXPERIMENTER: 4;
  readonly FEATURES_REQUEST: 5;
  readonly FEATURES_REPLY: 6;
  readonly GET_CONFIG_REQUEST: 7;
  readonly GET_CONFIG_REPLY: 8;
  readonly SET_CONFIG: 9;
  readonly PACKET_IN: 10;
  readonly FLOW_REMOVED: 11;
  readonly PORT_STATUS: 12;
  readonly PACKET_OUT: 13;
  readonly FLOW_MOD: 14;
  readonly GROUP_MOD: 15;
  readonly PORT_MOD: 16;
  readonly TABLE_MOD: 17;
  readonly MULTIPART_REQUEST: 18;
  readonly MULTIPART_REPLY: 19;
  readonly BARRIER_REQUEST: 20;
  readonly BARRIER_REPLY: 21;
  readonly ROLE_REQUEST: 24;
  readonly ROLE_REPLY: 25;
  readonly GET_ASYNC_REQUEST: 26;
  readonly GET_ASYNC_REPLY: 27;
  readonly SET_ASYNC: 28;
  readonly METER_MOD: 29;
  readonly ROLE_STATUS: 30;
  readonly TABLE_STATUS: 31;
  readonly REQUESTFORWARD: 32;
  readonly BUNDLE_CONTROL: 33;
  readonly BUNDLE_ADD_MESSAGE: 34;
};
/** Vendor (experimenter) ids. */
export declare const NX_VENDOR_ID = 8992;
export declare const ONF_VENDOR_ID = 1330529792;
/** Nicira experimenter message subtypes (carried in OFPT_EXPERIMENTER). */
export declare const NXT: {
  readonly SET_PACKET_IN_FORMAT: 16;
  readonly SET_CONTROLLER_ID: 20;
  readonly RESUME: 28;
  readonly PACKET_IN2: 30;
};
/** nx_packet_in_format values for NXT_SET_PACKET_IN_FORMAT. */
export declare const NXPIF: {
  readonly STANDARD: 0;
  readonly NXT_PACKET_IN: 1;
  readonly NXT_PACKET_IN2: 2;
};
/** Reserved port numbers (32-bit, OF1.1+). */
export declare const OFPP: {
  readonly MAX: 4294967040;
  readonly UNSET: 4294967287;
  readonly IN_PORT: 4294967288;
  readonly TABLE: 4294967289;
  readonly NORMAL: 4294967290;
  readonly FLOOD: 4294967291;
  readonly ALL: 4294967292;
  readonly CONTROLLER: 4294967293;
  readonly LOCAL: 4294967294;
  readonly ANY: 4294967295;
};
export declare const OFPG: {
  readonly MAX: 4294967040;
  readonly ALL: 4294967292;
  readonly ANY: 4294967295;
};
export declare const OFPM: {
  readonly MAX: 4294901760;
  readonly SLOWPATH: 4294967293;
  readonly CONTROLLER: 4294967294;
  readonly ALL: 4294967295;
};
export declare const OFPTT_ALL = 255;
export declare const OFP_NO_BUFFER = 4294967295;
export declare const OFP_DEFAULT_PRIORITY = 32768;
export declare const OFPCML_NO_BUFFER = 65535;
export declare const OFPFC: {
  readonly ADD: 0;
  readonly MODIFY: 1;
  readonly MODIFY_STRICT: 2;
  readonly DELETE: 3;
  readonly DELETE_STRICT: 4;
};
export type FlowModCommand = keyof typeof OFPFC;
export declare const OFPFF: {
  readonly SEND_FLOW_REM: number;
  readonly CHECK_OVERLAP: number;
  readonly RESET_COUNTS: number;
  readonly NO_PKT_COUNTS: number;
  readonly NO_BYT_COUNTS: number;
};
export declare const OFPGC: {
  readonly ADD: 0;
  readonly MODIFY: 1;
  readonly DELETE: 2;
  readonly INSERT_BUCKET: 3;
  readonly REMOVE_BUCKET: 5;
};
export type GroupModCommand = keyof typeof OFPGC;
export declare const OFPGT: {
  readonly all: 0;
  readonly select: 1;
  readonly indirect: 2;
  readonly ff: 3;
};
export type GroupType = keyof typeof OFPGT;
export declare const OFPGBPT: {
  readonly WEIGHT: 0;
  readonly WATCH_PORT: 1;
  readonly WATCH_GROUP: 2;
};
/** OFPG15_BUCKET_ALL: addresses every bucket (used as command_bucket_id for ADD/MODIFY/DELETE). */
export declare const OFPG_BUCKET_ALL = 4294967295;
export declare const OFPMC: {
  readonly ADD: 0;
  readonly MODIFY: 1;
  readonly DELETE: 2;
};
export type MeterModCommand = keyof typeof OFPMC;
export declare const OFPMF: {
  readonly KBPS: number;
  readonly PKTPS: number;
  readonly BURST: number;
  readonly STATS: number;
};
export declare const OFPMBT: {
  readonly DROP: 1;
  readonly DSCP_REMARK: 2;
};
export declare const OFPBCT: {
  readonly OPEN_REQUEST: 0;
  readonly OPEN_REPLY: 1;
  readonly CLOSE_REQUEST: 2;
  readonly CLOSE_REPLY: 3;
  readonly COMMIT_REQUEST: 4;
  readonly COMMIT_REPLY: 5;
  readonly DISCARD_REQUEST: 6;
  readonly DISCARD_REPLY: 7;
};
export declare const OFPBF: {
  readonly ATOMIC: number;
  readonly ORDERED: number;
};
export declare const OFPMP: {
  readonly DESC: 0;
  readonly FLOW_DESC: 1;
  readonly AGGREGATE_STATS: 2;
  readonly TABLE_STATS: 3;
  readonly PORT_STATS: 4;
  readonly GROUP_STATS: 6;
  readonly GROUP_DESC: 7;
  readonly METER_STATS: 9;
  readonly METER_CONFIG: 10;
  readonly PORT_DESC: 13;
  readonly FLOW_STATS: 17;
};
export declare const OFPMPF_MORE: number;
/** Instruction types. */
export declare const OFPIT: {
  readonly GOTO_TABLE: 1;
  readonly WRITE_METADATA: 2;
  readonly WRITE_ACTIONS: 3;
  readonly APPLY_ACTIONS: 4;
  readonly CLEAR_ACTIONS: 5;
  readonly STAT_TRIGGER: 7;
};
/** Standard action types. */
export declare const OFPAT: {
  readonly OUTPUT: 0;
  readonly COPY_TTL_OUT: 11;
  readonly COPY_TTL_IN: 12;
  readonly SET_MPLS_TTL: 15;
  readonly DEC_MPLS_TTL: 16;
  readonly PUSH_VLAN: 17;
  readonly POP_VLAN: 18;
  readonly SET_QUEUE: 21;
  readonly GROUP: 22;
  readonly SET_NW_TTL: 23;
  readonly DEC_NW_TTL: 24;
  readonly SET_FIELD: 25;
  readonly COPY_FIELD: 28;
  readonly METER: 29;
  readonly EXPERIMENTER: 65535;
};
/** Nicira action subtypes (OFPAT_EXPERIMENTER with NX_VENDOR_ID). */
export declare const NXAST: {
  readonly RESUBMIT: 1;
  readonly REG_MOVE: 6;
  readonly REG_LOAD: 7;
  readonly NOTE: 8;
  readonly RESUBMIT_TABLE: 14;
  readonly LEARN: 16;
  readonly EXIT: 17;
  readonly DEC_TTL_CNT_IDS: 21;
  readonly REG_LOAD2: 33;
  readonly CONJUNCTION: 34;
  readonly CT: 35;
  readonly NAT: 36;
  readonly CONTROLLER2: 37;
  readonly CT_CLEAR: 43;
  readonly RESUBMIT_TABLE_CT: 44;
};
export declare const NX_CT_F: {
  readonly COMMIT: number;
  readonly FORCE: number;
};
/** recirc_table value meaning "do not recirculate" (OFPTT_ALL). */
export declare const NX_CT_RECIRC_NONE = 255;
export declare const NX_NAT_F: {
  readonly SRC: number;
  readonly DST: number;
  readonly PERSISTENT: number;
  readonly PROTO_HASH: number;
  readonly PROTO_RANDOM: number;
};
export declare const NX_NAT_RANGE: {
  readonly IPV4_MIN: number;
  readonly IPV4_MAX: number;
  readonly IPV6_MIN: number;
  readonly IPV6_MAX: number;
  readonly PROTO_MIN: number;
  readonly PROTO_MAX: number;
};
export declare const NX_LEARN_F: {
  readonly SEND_FLOW_REM: number;
  readonly DELETE_LEARNED: number;
  readonly WRITE_RESULT: number;
};
export declare const NX_LEARN_SRC_IMMEDIATE: number;
export declare const NX_LEARN_DST: {
  readonly MATCH: number;
  readonly LOAD: number;
  readonly OUTPUT: number;
};
/** NXAST_CONTROLLER2 property types. */
export declare const NXAC2PT: {
  readonly MAX_LEN: 0;
  readonly CONTROLLER_ID: 1;
  readonly REASON: 2;
  readonly USERDATA: 3;
  readonly PAUSE: 4;
  readonly METER_ID: 5;
};
/** NXT_PACKET_IN2 property types. */
export declare const NXPINT: {
  readonly PACKET: 0;
  readonly FULL_LEN: 1;
  readonly BUFFER_ID: 2;
  readonly TABLE_ID: 3;
  readonly COOKIE: 4;
  readonly REASON: 5;
  readonly METADATA: 6;
  readonly USERDATA: 7;
  readonly CONTINUATION: 8;
};
/** Packet-in reasons (OFPR_*). */
export declare const OFPR: {
  readonly no_match: 0;
  readonly action: 1;
  readonly invalid_ttl: 2;
  readonly action_set: 3;
  readonly group: 4;
  readonly packet_out: 5;
};
export type PacketInReason = keyof typeof OFPR;
/** OFPT_SET_ASYNC property types (OF1.4+). */
export declare const OFPACPT: {
  readonly PACKET_IN_SLAVE: 0;
  readonly PACKET_IN_MASTER: 1;
  readonly PORT_STATUS_SLAVE: 2;
  readonly PORT_STATUS_MASTER: 3;
  readonly FLOW_REMOVED_SLAVE: 4;
  readonly FLOW_REMOVED_MASTER: 5;
  readonly ROLE_STATUS_SLAVE: 6;
  readonly ROLE_STATUS_MASTER: 7;
  readonly TABLE_STATUS_SLAVE: 8;
  readonly TABLE_STATUS_MASTER: 9;
  readonly REQUESTFORWARD_SLAVE: 10;
  readonly REQUESTFORWARD_MASTER: 11;
};
export declare const OFPET_NAMES: Record<number, string>;
/** Human name of an OpenFlow error, e.g. `OFPBAC_BAD_OUT_PORT`; falls back to numbers. */
export declare function errorName(type: number, code: number): string;
//# sourceMappingURL=constants.d.ts.map
