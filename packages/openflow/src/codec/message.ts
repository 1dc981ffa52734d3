import { OfDecodeError } from '../errors.js';
import {
  decodeError,
  decodeFeaturesReply,
  decodeHello,
  type ErrorMsg,
  type FeaturesReply,
  type Hello,
} from './basic.js';
import { type BundleAdd, type BundleControl, decodeBundleAdd, decodeBundleControl } from './bundle.js';
import { NX_VENDOR_ID, NXT, OFP_VERSION_15, OFPMP, OFPT } from './constants.js';
import { decodeFlowMod, type FlowMod } from './flow-mod.js';
import { decodeGroupMod, type GroupMod } from './group-mod.js';
import { decodeHeader, type OfHeader } from './header.js';
import { decodeMeterMod, type MeterMod } from './meter-mod.js';
import {
  decodeFlowStatsBody,
  decodeMultipartReply,
  decodeTableStatsBody,
  type FlowStats,
  type TableStats,
} from './multipart.js';
import { decodePacketIn2, decodePacketOut, type PacketIn2, type PacketOut } from './packet.js';

export type DecodedMessage =
  | { kind: 'hello'; header: OfHeader; body: Hello }
  | { kind: 'error'; header: OfHeader; body: ErrorMsg }
  | {
      kind: 'echo_request' | 'echo_reply' | 'barrier_request' | 'barrier_reply';
      header: OfHeader;
      body: Buffer;
    }
  | { kind: 'features_reply'; header: OfHeader; body: FeaturesReply }
  | { kind: 'flow_mod'; header: OfHeader; body: FlowMod }
  | { kind: 'group_mod'; header: OfHeader; body: GroupMod }
  | { kind: 'meter_mod'; header: OfHeader; body: MeterMod }
  | { kind: 'packet_out'; header: OfHeader; body: PacketOut }
  | { kind: 'packet_in2'; header: OfHeader; body: PacketIn2 }
  | { kind: 'bundle_control'; header: OfHeader; body: BundleControl }
  | { kind: 'bundle_add'; header: OfHeader; body: BundleAdd }
  | { kind: 'flow_stats_reply'; header: OfHeader; body: FlowStats[]; more: boolean }
  | { kind: 'table_stats_reply'; header: OfHeader; body: TableStats[]; more: boolean }
  | { kind: 'other'; header: OfHeader; body: Buffer };

/**
 * Decodes one complete OpenFlow 1.5 message into a typed value (for logs, tests and the fake
 * switch). Throws OfDecodeError on anything malformed; never reads outside `msg`.
 */
export function decodeMessage(msg: Buffer): DecodedMessage {
  const header = decodeHeader(msg);
  if (header.length !== msg.length)
    throw new OfDecodeError(`length field ${header.length} != frame size ${msg.length}`);
  if (header.version !== OFP_VERSION_15 && header.type !== OFPT.HELLO && header.type !== OFPT.ERROR) {
    throw new OfDecodeError(`unsupported OpenFlow version ${header.version}`);
  }
  const rest = msg.subarray(8);
  switch (header.type) {
    case OFPT.HELLO:
      return { kind: 'hello', header, body: decodeHello(msg) };
    case OFPT.ERROR:
      return { kind: 'error', header, body: decodeError(msg) };
    case OFPT.ECHO_REQUEST:
      return { kind: 'echo_request', header, body: rest };
    case OFPT.ECHO_REPLY:
      return { kind: 'echo_reply', header, body: rest };
    case OFPT.BARRIER_REQUEST:
      return { kind: 'barrier_request', header, body: rest };
    case OFPT.BARRIER_REPLY:
      return { kind: 'barrier_reply', header, body: rest };
    case OFPT.FEATURES_REPLY:
      return { kind: 'features_reply', header, body: decodeFeaturesReply(msg) };
    case OFPT.FLOW_MOD:
      return { kind: 'flow_mod', header, body: decodeFlowMod(msg) };
    case OFPT.GROUP_MOD:
      return { kind: 'group_mod', header, body: decodeGroupMod(msg) };
    case OFPT.METER_MOD:
      return { kind: 'meter_mod', header, body: decodeMeterMod(msg) };
    case OFPT.PACKET_OUT:
      return { kind: 'packet_out', header, body: decodePacketOut(msg) };
    case OFPT.BUNDLE_CONTROL:
      return { kind: 'bundle_control', header, body: decodeBundleControl(msg) };
    case OFPT.BUNDLE_ADD_MESSAGE:
      return { kind: 'bundle_add', header, body: decodeBundleAdd(msg) };
    case OFPT.MULTIPART_REPLY: {
      const mp = decodeMultipartReply(msg);
      if (mp.mpType === OFPMP.FLOW_DESC) {
        return { kind: 'flow_stats_reply', header, body: decodeFlowStatsBody(mp.body), more: mp.more };
      }
      if (mp.mpType === OFPMP.TABLE_STATS) {
        return { kind: 'table_stats_reply', header, body: decodeTableStatsBody(mp.body), more: mp.more };
      }
      return { kind: 'other', header, body: rest };
    }
    case OFPT.EXPERIMENTER:
      if (
        msg.length >= 16 &&
        msg.readUInt32BE(8) === NX_VENDOR_ID &&
        msg.readUInt32BE(12) === NXT.PACKET_IN2
      ) {
        return { kind: 'packet_in2', header, body: decodePacketIn2(msg) };
      }
      return { kind: 'other', header, body: rest };
    default:
      return { kind: 'other', header, body: rest };
  }
}
