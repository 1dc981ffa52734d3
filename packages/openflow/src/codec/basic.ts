import { OfDecodeError } from '../errors.js';
import { Reader } from './buffer.js';
import { errorName, NXPIF, NXT, OFP_VERSION_15, OFPACPT, OFPT } from './constants.js';
import { beginMessage, beginNxMessage, decodeHeader, endMessage } from './header.js';

const OFPHET_VERSIONBITMAP = 1;

/** OFPT_HELLO advertising exactly the given versions through a version bitmap element. */
export function encodeHello(xid: number, versions: readonly number[] = [OFP_VERSION_15]): Buffer {
  const w = beginMessage(OFPT.HELLO, xid, 16);
  let bitmap = 0;
  for (const v of versions) bitmap |= 1 << v;
  w.u16(OFPHET_VERSIONBITMAP)
    .u16(8)
    .u32(bitmap >>> 0);
  return endMessage(w);
}

export interface Hello {
  version: number;
  /** Versions from the bitmap element, if the peer sent one. */
  versions?: number[];
}

export function decodeHello(msg: Buffer): Hello {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const out: Hello = { version: h.version };
  while (r.remaining >= 4) {
    const type = r.u16();
    const len = r.u16();
    if (len < 4) throw new OfDecodeError(`bad hello element length ${len}`);
    const body = r.sub(len - 4, 'hello element');
    r.skip(Math.min(r.remaining, (8 - (len % 8)) % 8));
    if (type !== OFPHET_VERSIONBITMAP) continue;
    const versions: number[] = [];
    for (let word = 0; body.remaining >= 4; word++) {
      const bits = body.u32();
      for (let b = 0; b < 32; b++) if (bits & (1 << b)) versions.push(word * 32 + b);
    }
    out.versions = versions;
  }
  return out;
}

/** Picks the version both sides support (OpenFlow 1.5 only), or undefined. */
export function negotiateVersion(
  peer: Hello,
  ours: readonly number[] = [OFP_VERSION_15],
): number | undefined {
  if (peer.versions) {
    const common = ours.filter((v) => peer.versions!.includes(v));
    return common.length ? Math.max(...common) : undefined;
  }
  // Without a bitmap the peer supports every version up to its header version.
  const common = ours.filter((v) => v <= peer.version);
  return common.length ? Math.max(...common) : undefined;
}

export function encodeEchoRequest(xid: number, data: Buffer = Buffer.alloc(0)): Buffer {
  return endMessage(beginMessage(OFPT.ECHO_REQUEST, xid).bytes(data));
}

export function encodeEchoReply(xid: number, data: Buffer = Buffer.alloc(0)): Buffer {
  return endMessage(beginMessage(OFPT.ECHO_REPLY, xid).bytes(data));
}

export function encodeFeaturesRequest(xid: number): Buffer {
  return endMessage(beginMessage(OFPT.FEATURES_REQUEST, xid));
}

export interface FeaturesReply {
  datapathId: bigint;
  nBuffers: number;
  nTables: number;
  auxiliaryId: number;
  capabilities: number;
}

export function decodeFeaturesReply(msg: Buffer): FeaturesReply {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const datapathId = r.u64();
  const nBuffers = r.u32();
  const nTables = r.u8();
  const auxiliaryId = r.u8();
  r.skip(2);
  const capabilities = r.u32();
  return { datapathId, nBuffers, nTables, auxiliaryId, capabilities };
}

export function encodeFeaturesReply(xid: number, f: FeaturesReply): Buffer {
  const w = beginMessage(OFPT.FEATURES_REPLY, xid);
  w.u64(f.datapathId).u32(f.nBuffers).u8(f.nTables).u8(f.auxiliaryId).zeros(2).u32(f.capabilities).u32(0);
  return endMessage(w);
}

export function encodeBarrierRequest(xid: number): Buffer {
  return endMessage(beginMessage(OFPT.BARRIER_REQUEST, xid));
}

export function encodeBarrierReply(xid: number): Buffer {
  return endMessage(beginMessage(OFPT.BARRIER_REPLY, xid));
}

export interface ErrorMsg {
  errType: number;
  errCode: number;
  /** For OFPET_EXPERIMENTER errors. */
  experimenter?: number;
  name: string;
  /** Leading bytes of the offending request. */
  data: Buffer;
  /** xid of the offending request, when at least its header was echoed back. */
  offendingXid?: number;
  offendingType?: number;
}

export function decodeError(msg: Buffer): ErrorMsg {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const errType = r.u16();
  const errCode = r.u16();
  let experimenter: number | undefined;
  if (errType === 0xffff) experimenter = r.u32();
  const data = Buffer.from(r.bytes(r.remaining));
  const out: ErrorMsg = {
    errType,
    errCode,
    name:
      experimenter === undefined
        ? errorName(errType, errCode)
        : `experimenter 0x${experimenter.toString(16)} code ${errCode}`,
    data,
  };
  if (experimenter !== undefined) out.experimenter = experimenter;
  if (data.length >= 8) {
    out.offendingType = data[1]!;
    out.offendingXid = data.readUInt32BE(4);
  }
  return out;
}

export function encodeError(xid: number, errType: number, errCode: number, data: Buffer): Buffer {
  return endMessage(beginMessage(OFPT.ERROR, xid).u16(errType).u16(errCode).bytes(data.subarray(0, 64)));
}

/** OFPT_SET_CONFIG; a nonzero miss_send_len is what makes OVS send async messages to service connections. */
export function encodeSetConfig(xid: number, flags = 0, missSendLen = 0xffff): Buffer {
  return endMessage(beginMessage(OFPT.SET_CONFIG, xid).u16(flags).u16(missSendLen));
}

/** NXT_SET_PACKET_IN_FORMAT, normally NXT_PACKET_IN2. */
export function encodeSetPacketInFormat(xid: number, format: number = NXPIF.NXT_PACKET_IN2): Buffer {
  return endMessage(beginNxMessage(NXT.SET_PACKET_IN_FORMAT, xid).u32(format));
}

/** NXT_SET_CONTROLLER_ID: controller(id=N) actions reach only connections with that id. */
export function encodeSetControllerId(xid: number, id: number): Buffer {
  return endMessage(beginNxMessage(NXT.SET_CONTROLLER_ID, xid).zeros(6).u16(id));
}

export interface AsyncConfig {
  packetInMaster?: number;
  packetInSlave?: number;
  portStatusMaster?: number;
  portStatusSlave?: number;
  flowRemovedMaster?: number;
  flowRemovedSlave?: number;
}

/** OFPT_SET_ASYNC (OF1.4+ property form); only the given properties change. */
export function encodeSetAsync(xid: number, cfg: AsyncConfig): Buffer {
  const w = beginMessage(OFPT.SET_ASYNC, xid);
  const put = (type: number, mask: number | undefined): void => {
    if (mask !== undefined) w.u16(type).u16(8).u32(mask);
  };
  put(OFPACPT.PACKET_IN_SLAVE, cfg.packetInSlave);
  put(OFPACPT.PACKET_IN_MASTER, cfg.packetInMaster);
  put(OFPACPT.PORT_STATUS_SLAVE, cfg.portStatusSlave);
  put(OFPACPT.PORT_STATUS_MASTER, cfg.portStatusMaster);
  put(OFPACPT.FLOW_REMOVED_SLAVE, cfg.flowRemovedSlave);
  put(OFPACPT.FLOW_REMOVED_MASTER, cfg.flowRemovedMaster);
  return endMessage(w);
}
