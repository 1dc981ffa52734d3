import { OfDecodeError } from '../errors.js';
import { Reader, type Writer } from './buffer.js';
import { OFP_VERSION_15, OFPBCT, OFPBF, OFPT } from './constants.js';
import { beginMessage, decodeHeader, endMessage } from './header.js';

export type BundleControlType = keyof typeof OFPBCT;

export interface BundleFlags {
  atomic?: boolean;
  ordered?: boolean;
}

export function bundleFlagBits(f: BundleFlags): number {
  return (f.atomic ? OFPBF.ATOMIC : 0) | (f.ordered ? OFPBF.ORDERED : 0);
}

export function encodeBundleControl(
  xid: number,
  bundleId: number,
  type: BundleControlType,
  flags: BundleFlags,
): Buffer {
  const w = beginMessage(OFPT.BUNDLE_CONTROL, xid, 16);
  w.u32(bundleId).u16(OFPBCT[type]).u16(bundleFlagBits(flags));
  return endMessage(w);
}

export interface BundleControl {
  bundleId: number;
  type: BundleControlType;
  flags: number;
}

export function decodeBundleControl(msg: Buffer): BundleControl {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const bundleId = r.u32();
  const t = r.u16();
  const flags = r.u16();
  const type = (Object.keys(OFPBCT) as BundleControlType[]).find((k) => OFPBCT[k] === t);
  if (!type) throw new OfDecodeError(`bad bundle control type ${t}`);
  return { bundleId, type, flags };
}

/**
 * OFPT_BUNDLE_ADD_MESSAGE wrapping `inner`. The outer xid must equal the inner one (OpenFlow 1.4
 * §7.3.9), so the caller's xid for the inner message is reused.
 */
export function encodeBundleAdd(bundleId: number, flags: BundleFlags, inner: Buffer): Buffer {
  const xid = decodeHeader(inner).xid;
  const w = beginMessage(OFPT.BUNDLE_ADD_MESSAGE, xid, inner.length + 16);
  w.u32(bundleId).u16(0).u16(bundleFlagBits(flags)).bytes(inner);
  return endMessage(w);
}

export interface BundleAdd {
  bundleId: number;
  flags: number;
  inner: Buffer;
}

export function decodeBundleAdd(msg: Buffer): BundleAdd {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const bundleId = r.u32();
  r.skip(2);
  const flags = r.u16();
  const innerHeader = decodeHeader(msg, r.pos);
  return { bundleId, flags, inner: Buffer.from(r.bytes(innerHeader.length, 'bundled message')) };
}

/**
 * Encodes an OFPT_BUNDLE_ADD_MESSAGE whose inner message (of `innerType`, same xid) is written
 * in place by `writeBody`, avoiding a copy of the inner message on the hot path of big bundles.
 */
export function encodeBundleAddInPlace(
  bundleId: number,
  flags: BundleFlags,
  xid: number,
  innerType: number,
  writeBody: (w: Writer) => void,
): Buffer {
  const w = beginMessage(OFPT.BUNDLE_ADD_MESSAGE, xid, 256);
  w.u32(bundleId).u16(0).u16(bundleFlagBits(flags));
  const inner = w.length;
  w.u8(OFP_VERSION_15).u8(innerType).u16(0).u32(xid);
  writeBody(w);
  w.setU16(inner + 2, w.length - inner);
  return endMessage(w);
}
