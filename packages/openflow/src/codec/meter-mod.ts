import { OfDecodeError } from '../errors.js';
import { Reader } from './buffer.js';
import { type MeterModCommand, OFPMBT, OFPMC, OFPMF, OFPT } from './constants.js';
import { beginMessage, decodeHeader, endMessage } from './header.js';

export interface MeterBand {
  type: 'drop' | 'dscp_remark';
  rate: number;
  burstSize?: number;
  precLevel?: number;
}

export interface MeterMod {
  command: MeterModCommand;
  meterId: number;
  /** Rates in packets per second (default) or kilobits per second. */
  unit?: 'pktps' | 'kbps';
  burst?: boolean;
  stats?: boolean;
  bands: MeterBand[];
}

export function encodeMeterMod(xid: number, mm: MeterMod): Buffer {
  const w = beginMessage(OFPT.METER_MOD, xid);
  let flags = mm.unit === 'kbps' ? OFPMF.KBPS : OFPMF.PKTPS;
  if (mm.burst) flags |= OFPMF.BURST;
  if (mm.stats) flags |= OFPMF.STATS;
  w.u16(OFPMC[mm.command]).u16(flags).u32(mm.meterId);
  for (const b of mm.bands) {
    w.u16(b.type === 'drop' ? OFPMBT.DROP : OFPMBT.DSCP_REMARK)
      .u16(16)
      .u32(b.rate)
      .u32(b.burstSize ?? 0);
    if (b.type === 'dscp_remark') w.u8(b.precLevel ?? 0).zeros(3);
    else w.zeros(4);
  }
  return endMessage(w);
}

export function decodeMeterMod(msg: Buffer): MeterMod {
  const h = decodeHeader(msg);
  const r = new Reader(msg, 8, h.length);
  const cmd = r.u16();
  const flags = r.u16();
  const meterId = r.u32();
  const command = (Object.keys(OFPMC) as MeterModCommand[]).find((k) => OFPMC[k] === cmd);
  if (!command) throw new OfDecodeError(`bad meter_mod command ${cmd}`);
  const mm: MeterMod = { command, meterId, unit: flags & OFPMF.KBPS ? 'kbps' : 'pktps', bands: [] };
  if (flags & OFPMF.BURST) mm.burst = true;
  if (flags & OFPMF.STATS) mm.stats = true;
  while (r.remaining > 0) {
    const type = r.u16();
    const len = r.u16();
    if (len < 16) throw new OfDecodeError(`bad meter band length ${len}`);
    const b = r.sub(len - 4, 'meter band');
    const rate = b.u32();
    const burstSize = b.u32();
    if (type === OFPMBT.DROP) mm.bands.push({ type: 'drop', rate, burstSize });
    else if (type === OFPMBT.DSCP_REMARK)
      mm.bands.push({ type: 'dscp_remark', rate, burstSize, precLevel: b.u8() });
    else throw new OfDecodeError(`unsupported meter band type ${type}`);
  }
  return mm;
}
