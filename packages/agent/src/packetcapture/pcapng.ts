// pcapng (draft-ietf-opsawg-pcapng), the format Antrea's agent writes its capture files in: one
// Section Header Block, one Interface Description Block for the captured interface, then one
// Enhanced Packet Block per packet. Pure encoders, little-endian (the byte-order magic says so).
import type { CapturedPacket } from './pcap-stream.js';

export const PCAPNG_BLOCK = {
  sectionHeader: 0x0a0d0d0a,
  interfaceDescription: 0x00000001,
  enhancedPacket: 0x00000006,
} as const;
export const PCAPNG_BYTE_ORDER_MAGIC = 0x1a2b3c4d;
/** LINKTYPE_ETHERNET: a Pod's host-side veth carries Ethernet frames. */
export const LINKTYPE_ETHERNET = 1;
/** Antrea's snap length. */
export const CAPTURE_SNAP_LENGTH = 65536;

const OPT_END = 0;
const OPT_SHB_USERAPPL = 4;
const OPT_IF_NAME = 2;
const OPT_IF_TSRESOL = 9;
/** if_tsresol 9: timestamps count nanoseconds (10^-9 s). */
const TSRESOL_NANOS = 9;

const pad4 = (n: number) => (4 - (n % 4)) % 4;

function option(code: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(code, 0);
  head.writeUInt16LE(value.length, 2);
  return Buffer.concat([head, value, Buffer.alloc(pad4(value.length))]);
}

function options(list: Buffer[]): Buffer {
  return list.length === 0 ? Buffer.alloc(0) : Buffer.concat([...list, option(OPT_END, Buffer.alloc(0))]);
}

/** type, total length, body, total length again. */
function block(type: number, body: Buffer): Buffer {
  const total = 12 + body.length;
  const head = Buffer.alloc(8);
  head.writeUInt32LE(type, 0);
  head.writeUInt32LE(total, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(total, 0);
  return Buffer.concat([head, body, tail]);
}

export interface PcapngInterface {
  /** The captured device (if_name), e.g. the Pod's host-side veth. */
  readonly name: string;
  readonly linkType?: number;
  readonly snapLength?: number;
}

/** Section header and the one interface every packet of the file refers to (interface id 0). */
export function pcapngHeader(iface: PcapngInterface, application = 'antrea-ts antrea-agent'): Buffer {
  const shb = Buffer.alloc(16);
  shb.writeUInt32LE(PCAPNG_BYTE_ORDER_MAGIC, 0);
  shb.writeUInt16LE(1, 4); // major
  shb.writeUInt16LE(0, 6); // minor
  shb.writeBigInt64LE(-1n, 8); // section length not given
  const idb = Buffer.alloc(8);
  idb.writeUInt16LE(iface.linkType ?? LINKTYPE_ETHERNET, 0);
  idb.writeUInt32LE(iface.snapLength ?? CAPTURE_SNAP_LENGTH, 4);
  return Buffer.concat([
    block(
      PCAPNG_BLOCK.sectionHeader,
      Buffer.concat([shb, options([option(OPT_SHB_USERAPPL, Buffer.from(application))])]),
    ),
    block(
      PCAPNG_BLOCK.interfaceDescription,
      Buffer.concat([
        idb,
        options([
          option(OPT_IF_NAME, Buffer.from(iface.name)),
          option(OPT_IF_TSRESOL, Buffer.from([TSRESOL_NANOS])),
        ]),
      ]),
    ),
  ]);
}

/** One Enhanced Packet Block on interface 0, timestamp in nanoseconds (the interface's resolution). */
export function pcapngPacket(p: CapturedPacket): Buffer {
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0, 0); // interface id
  head.writeUInt32LE(Number(p.timestampNs >> 32n), 4);
  head.writeUInt32LE(Number(p.timestampNs & 0xffffffffn), 8);
  head.writeUInt32LE(p.data.length, 12);
  head.writeUInt32LE(p.originalLength, 16);
  return block(PCAPNG_BLOCK.enhancedPacket, Buffer.concat([head, p.data, Buffer.alloc(pad4(p.data.length))]));
}
