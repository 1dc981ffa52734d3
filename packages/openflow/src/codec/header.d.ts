import { Writer } from './buffer.js';
export interface OfHeader {
  version: number;
  type: number;
  length: number;
  xid: number;
}
export declare function decodeHeader(buf: Buffer, offset?: number): OfHeader;
/** Starts a message: writes a header with a placeholder length. Call `endMessage` to patch it. */
export declare function beginMessage(type: number, xid: number, sizeHint?: number): Writer;
/** Starts a Nicira experimenter message (OFPT_EXPERIMENTER + NX vendor + subtype). */
export declare function beginNxMessage(subtype: number, xid: number, sizeHint?: number): Writer;
export declare function endMessage(w: Writer): Buffer;
/** Rewrites the xid of an encoded message in place (used when a message is queued before its xid is known). */
export declare function setXid(msg: Buffer, xid: number): void;
/**
 * Reassembles OpenFlow messages from a byte stream. Bounded: a frame is at most 64 KiB, so
 * a peer cannot make it buffer without limit.
 */
export declare class FrameSplitter {
  private pending;
  private pendingLen;
  push(chunk: Buffer): Buffer[];
  get buffered(): number;
}
//# sourceMappingURL=header.d.ts.map
