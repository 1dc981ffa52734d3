import { OfDecodeError } from '../errors.js';
import { decodeInstructions } from './action-decode.js';
import { encodeInstructions } from './action-encode.js';
import { Reader } from './buffer.js';
import { type GroupType, OFPG, OFPGT, OFPMP, OFPMPF_MORE, OFPP, OFPT, OFPTT_ALL } from './constants.js';
import type { Flow } from './flow-mod.js';
import { type Bucket, decodeBuckets } from './group-mod.js';
import { decodeGroupProperties, type SelectionMethod } from './group-props.js';
import { beginMessage, decodeHeader, endMessage } from './header.js';
import { decodeMatch, encodeMatch, type Match } from './match.js';

export interface FlowStatsRequest {
  table?: number;
  outPort?: number;
  outGroup?: number;
  cookie?: bigint;
  cookieMask?: bigint;
  match?: Match;
}

/** OFPMP_FLOW_DESC request (OpenFlow 1.5 renamed OFPMP_FLOW; same number 1). */
export function encodeFlowStatsRequest(xid: number, req: FlowStatsRequest = {}): Buffer {
  const w = beginMessage(OFPT.MULTIPART_REQUEST, xid, 64);
  w.u16(OFPMP.FLOW_DESC).u16(0).zeros(4);
  w.u8(req.table ?? OFPTT_ALL).zeros(3);
  w.u32(req.outPort ?? OFPP.ANY)
    .u32(req.outGroup ?? OFPG.ANY)
    .zeros(4);
  w.u64(req.cookie ?? 0n).u64(req.cookieMask ?? 0n);
  encodeMatch(w, req.match ?? []);
  return endMessage(w);
}

export function encodeTableStatsRequest(xid: number): Buffer {
  const w = beginMessage(OFPT.MULTIPART_REQUEST, xid, 16);
  w.u16(OFPMP.TABLE_STATS).u16(0).zeros(4);
  return endMessage(w);
}

export interface MultipartHeader {
  mpType: number;
  more: boolean;
  body: Reader;
}

export function decodeMultipartReply(msg: Buffer): MultipartHeader {
  const h = decodeHeader(msg);
  if (h.type !== OFPT.MULTIPART_REPLY) throw new OfDecodeError(`not a multipart reply (type ${h.type})`);
  const r = new Reader(msg, 8, h.length);
  const mpType = r.u16();
  const flags = r.u16();
  r.skip(4);
  return { mpType, more: (flags & OFPMPF_MORE) !== 0, body: r };
}

/** Flow statistics as dumped. Counters come from OXS; absent ones are undefined. */
export interface FlowStats extends Flow {
  durationSec?: number;
  durationNsec?: number;
  idleAgeSec?: number;
  packetCount?: bigint;
  byteCount?: bigint;
}

const OXS_CLASS_BASIC = 0x8002;

function decodeOxs(r: Reader, fs: FlowStats): void {
  r.skip(2); // reserved
  const length = r.u16();
  if (length < 4) throw new OfDecodeError(`bad OXS stats length ${length}`);
  const body = r.sub(length - 4, 'OXS stats');
  r.skip((8 - (length % 8)) % 8);
  while (body.remaining > 0) {
    const header = body.u32();
    const cls = header >>> 16;
    const field = (header >>> 9) & 0x7f;
    const len = header & 0xff;
    const v = body.sub(len, 'OXS field');
    if (cls !== OXS_CLASS_BASIC) continue;
    if (field === 0 && len === 8) {
      fs.durationSec = v.u32();
      fs.durationNsec = v.u32();
    } else if (field === 1 && len === 8) {
      fs.idleAgeSec = v.u32();
    } else if (field === 4 && len === 8) {
      fs.packetCount = v.u64();
    } else if (field === 5 && len === 8) {
      fs.byteCount = v.u64();
    }
  }
}

/** Decodes every ofp15_flow_desc entry of one OFPMP_FLOW_DESC reply message. */
export function decodeFlowStatsBody(r: Reader): FlowStats[] {
  const out: FlowStats[] = [];
  while (r.remaining > 0) {
    const length = r.u16();
    if (length < 24) throw new OfDecodeError(`bad flow_desc length ${length}`);
    const e = r.sub(length - 2, 'flow_desc');
    e.skip(2);
    const table = e.u8();
    e.skip(1);
    const fs: FlowStats = {
      table,
      priority: e.u16(),
      idleTimeout: e.u16(),
      hardTimeout: e.u16(),
      flags: e.u16(),
      importance: e.u16(),
      cookie: e.u64(),
      match: [],
      actions: [],
    };
    fs.match = decodeMatch(e);
    decodeOxs(e, fs);
    fs.actions = decodeInstructions(e);
    out.push(fs);
  }
  return out;
}

/** Encodes flow stats reply entries (used by test doubles that play the switch). */
export function encodeFlowStatsReply(xid: number, flows: readonly FlowStats[], more = false): Buffer {
  const w = beginMessage(OFPT.MULTIPART_REPLY, xid, 256);
  w.u16(OFPMP.FLOW_DESC)
    .u16(more ? OFPMPF_MORE : 0)
    .zeros(4);
  for (const f of flows) {
    const start = w.length;
    w.u16(0)
      .zeros(2)
      .u8(f.table ?? 0)
      .u8(0)
      .u16(f.priority ?? 0x8000)
      .u16(f.idleTimeout ?? 0);
    w.u16(f.hardTimeout ?? 0)
      .u16(f.flags ?? 0)
      .u16(f.importance ?? 0)
      .u64(f.cookie ?? 0n);
    encodeMatch(w, f.match);
    const oxs = w.length;
    w.u16(0).u16(0);
    w.u32((OXS_CLASS_BASIC << 16) | (0 << 9) | 8)
      .u32(f.durationSec ?? 0)
      .u32(f.durationNsec ?? 0);
    w.u32((OXS_CLASS_BASIC << 16) | (4 << 9) | 8).u64(f.packetCount ?? 0n);
    w.u32((OXS_CLASS_BASIC << 16) | (5 << 9) | 8).u64(f.byteCount ?? 0n);
    w.setU16(oxs + 2, w.length - oxs);
    w.padTo(8, oxs);
    encodeInstructions(w, f.actions);
    w.setU16(start, w.length - start);
  }
  return endMessage(w);
}

export interface TableStats {
  table: number;
  activeCount: number;
  lookupCount: bigint;
  matchedCount: bigint;
}

export function decodeTableStatsBody(r: Reader): TableStats[] {
  const out: TableStats[] = [];
  while (r.remaining > 0) {
    const table = r.u8();
    r.skip(3);
    out.push({ table, activeCount: r.u32(), lookupCount: r.u64(), matchedCount: r.u64() });
  }
  return out;
}

/** OFPMP_GROUP_DESC request (OpenFlow 1.5 form, with a group id; OFPG_ALL for every group). */
export function encodeGroupDescRequest(xid: number, groupId: number = OFPG.ALL): Buffer {
  const w = beginMessage(OFPT.MULTIPART_REQUEST, xid, 24);
  w.u16(OFPMP.GROUP_DESC).u16(0).zeros(4);
  w.u32(groupId).zeros(4);
  return endMessage(w);
}

export interface GroupDesc {
  groupId: number;
  type: GroupType;
  buckets: Bucket[];
  selection?: SelectionMethod;
}

/** Decodes the ofp15_group_desc entries of one OFPMP_GROUP_DESC reply. */
export function decodeGroupDescBody(r: Reader): GroupDesc[] {
  const out: GroupDesc[] = [];
  while (r.remaining > 0) {
    const length = r.u16();
    if (length < 16) throw new OfDecodeError(`bad group_desc length ${length}`);
    const e = r.sub(length - 2, 'group_desc');
    const t = e.u8();
    e.skip(1);
    const groupId = e.u32();
    const bucketsLen = e.u16();
    e.skip(6);
    const type = (Object.keys(OFPGT) as GroupType[]).find((k) => OFPGT[k] === t);
    if (!type) throw new OfDecodeError(`unknown group type ${t}`);
    const buckets = decodeBuckets(e.sub(bucketsLen, 'group buckets'));
    const selection = decodeGroupProperties(e);
    out.push({ groupId, type, buckets, ...(selection ? { selection } : {}) });
  }
  return out;
}
