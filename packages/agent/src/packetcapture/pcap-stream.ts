// Reads the classic libpcap format tcpdump writes with `-w -` (a 24-byte file header, then a
// 16-byte header per packet), chunk by chunk as the pipe delivers it. Pure: bytes in, packets out.
import { AgentError } from '../errors.js';

/** One captured packet with its capture time. */
export interface CapturedPacket {
  /** Capture time in nanoseconds since the epoch. */
  readonly timestampNs: bigint;
  /** Length on the wire (may exceed data.length when the snap length cut it). */
  readonly originalLength: number;
  readonly data: Buffer;
}

/** What the file header says about every packet that follows. */
export interface PcapHeader {
  readonly linkType: number;
  readonly snapLength: number;
}

const MAGIC_MICROS = 0xa1b2c3d4;
const MAGIC_NANOS = 0xa1b23c4d;
const FILE_HEADER = 24;
const RECORD_HEADER = 16;

export class PcapStreamReader {
  private buffered: Buffer = Buffer.alloc(0);
  private little = true;
  private nanos = false;
  header: PcapHeader | undefined;

  /** Feeds bytes; returns the packets they complete. */
  push(chunk: Buffer): CapturedPacket[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: CapturedPacket[] = [];
    let at = 0;
    if (!this.header) {
      if (this.buffered.length < FILE_HEADER) return out;
      this.readFileHeader(this.buffered);
      at = FILE_HEADER;
    }
    const u32 = (off: number) =>
      this.little ? this.buffered.readUInt32LE(off) : this.buffered.readUInt32BE(off);
    while (this.buffered.length - at >= RECORD_HEADER) {
      const captured = u32(at + 8);
      if (this.buffered.length - at - RECORD_HEADER < captured) break;
      const seconds = BigInt(u32(at));
      const fraction = BigInt(u32(at + 4));
      out.push({
        timestampNs: seconds * 1_000_000_000n + (this.nanos ? fraction : fraction * 1000n),
        originalLength: u32(at + 12),
        data: Buffer.from(this.buffered.subarray(at + RECORD_HEADER, at + RECORD_HEADER + captured)),
      });
      at += RECORD_HEADER + captured;
    }
    this.buffered = this.buffered.subarray(at);
    return out;
  }

  private readFileHeader(b: Buffer): void {
    const le = b.readUInt32LE(0);
    const be = b.readUInt32BE(0);
    if (le === MAGIC_MICROS || le === MAGIC_NANOS) this.little = true;
    else if (be === MAGIC_MICROS || be === MAGIC_NANOS) this.little = false;
    else
      throw new AgentError(
        'AGENT_PACKETCAPTURE_FAILED',
        `not a pcap stream (magic 0x${be.toString(16).padStart(8, '0')})`,
      );
    this.nanos = (this.little ? le : be) === MAGIC_NANOS;
    const u32 = (off: number) => (this.little ? b.readUInt32LE(off) : b.readUInt32BE(off));
    this.header = { snapLength: u32(16), linkType: u32(20) & 0xfffffff };
  }
}
