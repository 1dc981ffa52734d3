import { OfDecodeError } from '../errors.js';
import { Writer } from './buffer.js';
import { NX_VENDOR_ID, OFP_HEADER_LEN, OFP_VERSION_15, OFPT } from './constants.js';
export function decodeHeader(buf, offset = 0) {
  if (buf.length - offset < OFP_HEADER_LEN)
    throw new OfDecodeError(`short header: ${buf.length - offset} bytes`);
  const length = buf.readUInt16BE(offset + 2);
  if (length < OFP_HEADER_LEN) throw new OfDecodeError(`header length ${length} < 8`);
  return { version: buf[offset], type: buf[offset + 1], length, xid: buf.readUInt32BE(offset + 4) };
}
/** Starts a message: writes a header with a placeholder length. Call `endMessage` to patch it. */
export function beginMessage(type, xid, sizeHint = 64) {
  const w = new Writer(sizeHint);
  w.u8(OFP_VERSION_15).u8(type).u16(0).u32(xid);
  return w;
}
/** Starts a Nicira experimenter message (OFPT_EXPERIMENTER + NX vendor + subtype). */
export function beginNxMessage(subtype, xid, sizeHint = 64) {
  const w = beginMessage(OFPT.EXPERIMENTER, xid, sizeHint);
  w.u32(NX_VENDOR_ID).u32(subtype);
  return w;
}
export function endMessage(w) {
  w.setU16(2, w.length);
  return w.finish();
}
/** Rewrites the xid of an encoded message in place (used when a message is queued before its xid is known). */
export function setXid(msg, xid) {
  msg.writeUInt32BE(xid >>> 0, 4);
}
/**
 * Reassembles OpenFlow messages from a byte stream. Bounded: a frame is at most 64 KiB, so
 * a peer cannot make it buffer without limit.
 */
export class FrameSplitter {
  pending = [];
  pendingLen = 0;
  push(chunk) {
    this.pending.push(chunk);
    this.pendingLen += chunk.length;
    if (this.pendingLen < OFP_HEADER_LEN) return [];
    let buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingLen);
    const out = [];
    let off = 0;
    while (buf.length - off >= OFP_HEADER_LEN) {
      const len = buf.readUInt16BE(off + 2);
      if (len < OFP_HEADER_LEN) throw new OfDecodeError(`frame length ${len} < 8 at stream offset ${off}`);
      if (buf.length - off < len) break;
      out.push(buf.subarray(off, off + len));
      off += len;
    }
    buf = buf.subarray(off);
    this.pending = buf.length ? [buf] : [];
    this.pendingLen = buf.length;
    return out;
  }
  get buffered() {
    return this.pendingLen;
  }
}
//# sourceMappingURL=header.js.map
