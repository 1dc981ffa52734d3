import { OfDecodeError } from '../errors.js';
import { decodeActionList } from './action-decode.js';
import { encodeActions } from './action-encode.js';
import type { Action } from './actions.js';
import { Reader, type Writer } from './buffer.js';
import {
  type GroupModCommand,
  type GroupType,
  OFPG_BUCKET_ALL,
  OFPGBPT,
  OFPGC,
  OFPGT,
  OFPT,
} from './constants.js';
import { decodeGroupProperties, encodeSelectionMethod, type SelectionMethod } from './group-props.js';
import { beginMessage, decodeHeader, endMessage } from './header.js';

export interface Bucket {
  bucketId: number;
  weight?: number;
  watchPort?: number;
  watchGroup?: number;
  actions: Action[];
}

export interface GroupMod {
  command: GroupModCommand;
  type: GroupType;
  groupId: number;
  buckets: Bucket[];
  /** For INSERT_BUCKET / REMOVE_BUCKET; ADD/MODIFY/DELETE require OFPG15_BUCKET_ALL. */
  commandBucketId?: number;
  /** Select groups only: how a bucket is picked (OVS's NTR selection-method property). */
  selection?: SelectionMethod;
}

function encodeBucket(w: Writer, b: Bucket, type: GroupType): void {
  const start = w.length;
  w.u16(0).u16(0).u32(b.bucketId);
  const actionsStart = w.length;
  encodeActions(w, b.actions);
  w.setU16(start + 2, w.length - actionsStart);
  // OVS always carries a weight for select groups; 100 is its default.
  if (type === 'select' || b.weight !== undefined)
    w.u16(OFPGBPT.WEIGHT)
      .u16(8)
      .u16(b.weight ?? 100)
      .zeros(2);
  if (b.watchPort !== undefined) w.u16(OFPGBPT.WATCH_PORT).u16(8).u32(b.watchPort);
  if (b.watchGroup !== undefined) w.u16(OFPGBPT.WATCH_GROUP).u16(8).u32(b.watchGroup);
  w.setU16(start, w.length - start);
}

export function encodeGroupMod(xid: number, gm: GroupMod): Buffer {
  const w = beginMessage(OFPT.GROUP_MOD, xid, 128);
  writeGroupModBody(w, gm);
  return endMessage(w);
}

/** Writes the group_mod body (everything after the header); lets bundles encode in place. */
export function writeGroupModBody(w: Writer, gm: GroupMod): void {
  w.u16(OFPGC[gm.command]).u8(OFPGT[gm.type]).u8(0).u32(gm.groupId);
  const lenAt = w.length;
  w.u16(0)
    .zeros(2)
    .u32(gm.commandBucketId ?? OFPG_BUCKET_ALL);
  const bucketsStart = w.length;
  for (const b of gm.buckets) encodeBucket(w, b, gm.type);
  w.setU16(lenAt, w.length - bucketsStart);
  if (gm.selection) encodeSelectionMethod(w, gm.selection);
}

export function decodeBuckets(r: Reader): Bucket[] {
  const buckets: Bucket[] = [];
  while (r.remaining > 0) {
    const len = r.u16();
    const actionsLen = r.u16();
    if (len < 8 || actionsLen > len - 8) throw new OfDecodeError(`bad bucket length ${len}/${actionsLen}`);
    const bucketId = r.u32();
    const body = r.sub(len - 8, 'bucket');
    const b: Bucket = { bucketId, actions: decodeActionList(body.sub(actionsLen, 'bucket actions')) };
    while (body.remaining >= 4) {
      const type = body.u16();
      const plen = body.u16();
      if (plen < 4) throw new OfDecodeError(`bad bucket property length ${plen}`);
      const p = body.sub(plen - 4, 'bucket property');
      body.skip(Math.min(body.remaining, (8 - (plen % 8)) % 8));
      if (type === OFPGBPT.WEIGHT) b.weight = p.u16();
      else if (type === OFPGBPT.WATCH_PORT) b.watchPort = p.u32();
      else if (type === OFPGBPT.WATCH_GROUP) b.watchGroup = p.u32();
    }
    buckets.push(b);
  }
  return buckets;
}

export function decodeGroupMod(msg: Buffer): GroupMod {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const cmd = r.u16();
  const type = r.u8();
  r.skip(1);
  const groupId = r.u32();
  const bucketsLen = r.u16();
  r.skip(2);
  const commandBucketId = r.u32();
  const command = (Object.keys(OFPGC) as GroupModCommand[]).find((k) => OFPGC[k] === cmd);
  const typeName = (Object.keys(OFPGT) as GroupType[]).find((k) => OFPGT[k] === type);
  if (!command || !typeName) throw new OfDecodeError(`bad group_mod command ${cmd} / type ${type}`);
  const buckets = decodeBuckets(r.sub(bucketsLen, 'buckets'));
  const selection = decodeGroupProperties(r);
  return { command, type: typeName, groupId, commandBucketId, buckets, ...(selection ? { selection } : {}) };
}
