import { type Action, type LearnSpec, refWidth, type Subfield } from '../codec/actions.js';
import { OFP_DEFAULT_PRIORITY, OFPFF, OFPP, OFPR, type PacketInReason } from '../codec/constants.js';
import {
  allOnes,
  CT_STATE_BITS,
  cidrBits,
  type FieldDef,
  formatFlags,
  formatIpv4,
  formatIpv6,
  formatMac,
  formatPort,
  getField,
  hexAlt,
  lookupField,
  TCP_FLAG_BITS,
} from '../codec/fields.js';
import type { Flow } from '../codec/flow-mod.js';
import type { Match, MatchField } from '../codec/match.js';
import type { FlowStats } from '../codec/multipart.js';

/**
 * Prints flows the way `ovs-ofctl -O OpenFlow15 dump-flows` does (lib/match.c match_format and
 * the ofp-actions formatters), so our dumps can be compared with ovs-ofctl's line by line.
 */

/** OVS meta-flow names where they differ from our canonical field names. */
const MF_NAMES: Record<string, string> = {
  nw_src: 'ip_src',
  nw_dst: 'ip_dst',
  ip_proto: 'nw_proto',
  in_port: 'in_port_oxm',
};

export function mfName(field: string): string {
  return MF_NAMES[field] ?? field;
}

const DECIMAL_KINDS = new Set(['dec', 'dec16', 'vlan', 'dscp']);
const HEX_DEC_FIELDS = new Set(['ct_zone']);

/** `mf_format`: a field value as set_field and learn print it. */
export function formatFieldValue(f: FieldDef, value: bigint, mask?: bigint): string {
  const full = allOnes(f.bytes);
  const m = mask === undefined || mask === full ? undefined : mask;
  if (m === 0n) return 'ANY';
  switch (f.kind) {
    case 'port':
      if (m === undefined)
        return formatPort(
          Number(value) >= 0xff00 && f.bytes === 2 ? Number(value) + 0xffff0000 : Number(value),
        );
      break;
    case 'mac':
      return formatMac(value) + (m === undefined ? '' : `/${formatMac(m)}`);
    case 'ipv4':
      return formatIpv4(value) + (m === undefined ? '' : ipv4MaskText(m));
    case 'ipv6':
      return formatIpv6(value) + (m === undefined ? '' : ipv6MaskText(m));
    case 'ct_state':
      return formatFlags(value, m ?? 0xffffffffn, 0xffffffffn, CT_STATE_BITS);
    case 'tcp_flags':
      return formatFlags(value, m ?? 0xffffn, 0xffffn, TCP_FLAG_BITS);
    default:
      break;
  }
  const decimal = DECIMAL_KINDS.has(f.kind) && !HEX_DEC_FIELDS.has(f.name);
  const v = decimal ? value.toString() : hexAlt(value);
  return m === undefined ? v : `${v}/${hexAlt(m)}`;
}

function ipv4MaskText(m: bigint): string {
  const n = cidrBits(m, 32);
  return n >= 0 ? `/${n}` : `/${formatIpv4(m)}`;
}

function ipv6MaskText(m: bigint): string {
  const n = cidrBits(m, 128);
  return n >= 0 ? `/${n}` : `/${formatIpv6(m)}`;
}

function hexMasked(name: string, mf: MatchField, bytes: number): string {
  const full = allOnes(bytes);
  if (mf.mask === undefined || mf.mask === full) return `${name}=${hexAlt(mf.value)},`;
  return `${name}=${hexAlt(mf.value)}/${hexAlt(mf.mask)},`;
}

function be16Masked(name: string, mf: MatchField): string {
  if (mf.mask === undefined || mf.mask === 0xffffn) return `${name}=${mf.value},`;
  return `${name}=0x${mf.value.toString(16)}/0x${mf.mask.toString(16)},`;
}

function addrMasked(name: string, mf: MatchField, kind: 'ipv4' | 'ipv6' | 'mac'): string {
  if (kind === 'mac') {
    return `${name}=${formatMac(mf.value)}${mf.mask === undefined ? '' : `/${formatMac(mf.mask)}`},`;
  }
  if (kind === 'ipv4')
    return `${name}=${formatIpv4(mf.value)}${mf.mask === undefined ? '' : ipv4MaskText(mf.mask)},`;
  return `${name}=${formatIpv6(mf.value)}${mf.mask === undefined ? '' : ipv6MaskText(mf.mask)},`;
}

/** Splits xxreg matches into the 32-bit registers OVS stores them in (xxregN = reg4N..reg4N+3). */
function expandRegisters(m: Map<string, MatchField>): void {
  for (let x = 0; x < 4; x++) {
    const mf = m.get(`xxreg${x}`);
    if (!mf) continue;
    m.delete(`xxreg${x}`);
    const mask = mf.mask ?? allOnes(16);
    for (let i = 0; i < 4; i++) {
      const shift = BigInt((3 - i) * 32);
      const part = (mask >> shift) & 0xffffffffn;
      if (part === 0n) continue;
      const value = (mf.value >> shift) & 0xffffffffn;
      m.set(
        `reg${4 * x + i}`,
        part === 0xffffffffn
          ? { field: `reg${4 * x + i}`, value }
          : { field: `reg${4 * x + i}`, value, mask: part },
      );
    }
  }
}

/** `match_format`: the match part of a flow, e.g. `priority=200,ip,nw_src=10.0.0.0/24`. */
export function formatMatch(match: Match, priority: number = OFP_DEFAULT_PRIORITY): string {
  const m = new Map(match.map((x) => [x.field, x]));
  expandRegisters(m);
  let s = '';
  if (priority !== OFP_DEFAULT_PRIORITY) s += `priority=${priority},`;
  const get = (n: string): MatchField | undefined => m.get(n);
  const pkt = get('pkt_mark');
  if (pkt) s += hexMasked('pkt_mark', pkt, 4);
  const conj = get('conj_id');
  if (conj) s += `conj_id=${conj.value},`;
  const cts = get('ct_state');
  if (cts) {
    const mask = (cts.mask ?? 0xffn) & 0xffn;
    s += `ct_state=${formatFlags(cts.value & 0xffn, mask, 0xffn, CT_STATE_BITS)},`;
  }
  const ctz = get('ct_zone');
  if (ctz) s += be16Masked('ct_zone', ctz);
  const ctm = get('ct_mark');
  if (ctm) s += hexMasked('ct_mark', ctm, 4);
  const ctl = get('ct_label');
  if (ctl) s += hexMasked('ct_label', ctl, 16);
  for (const [n, k] of [
    ['ct_nw_src', 'ipv4'],
    ['ct_ipv6_src', 'ipv6'],
    ['ct_nw_dst', 'ipv4'],
    ['ct_ipv6_dst', 'ipv6'],
  ] as const) {
    const x = get(n);
    if (x) s += addrMasked(n, x, k);
  }
  const ctp = get('ct_nw_proto');
  if (ctp) {
    s += `ct_nw_proto=${ctp.value},`;
    const a = get('ct_tp_src');
    if (a) s += be16Masked('ct_tp_src', a);
    const b = get('ct_tp_dst');
    if (b) s += be16Masked('ct_tp_dst', b);
  }
  const ethType = get('eth_type');
  const dlType = ethType ? Number(ethType.value) : undefined;
  const proto = get('ip_proto');
  let skipType = false;
  let skipProto = false;
  if (dlType !== undefined) {
    skipType = true;
    const p = proto ? Number(proto.value) : undefined;
    if (dlType === 0x0800) {
      const names: Record<number, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 132: 'sctp' };
      const name = p !== undefined ? names[p] : undefined;
      s += `${name ?? 'ip'},`;
      skipProto = name !== undefined;
    } else if (dlType === 0x86dd) {
      const names: Record<number, string> = { 58: 'icmp6', 6: 'tcp6', 17: 'udp6', 132: 'sctp6' };
      const name = p !== undefined ? names[p] : undefined;
      s += `${name ?? 'ipv6'},`;
      skipProto = name !== undefined;
    } else if (dlType === 0x0806) s += 'arp,';
    else if (dlType === 0x8035) s += 'rarp,';
    else if (dlType === 0x8847) s += 'mpls,';
    else if (dlType === 0x8848) s += 'mplsm,';
    else skipType = false;
  }
  for (let i = 0; i < 16; i++) {
    const r = get(`reg${i}`);
    if (r) s += hexMasked(`reg${i}`, r, 4);
  }
  const tid = get('tun_id');
  if (tid) s += hexMasked('tun_id', tid, 8);
  const tsrc = get('tun_src');
  if (tsrc) s += addrMasked('tun_src', tsrc, 'ipv4');
  const tdst = get('tun_dst');
  if (tdst) s += addrMasked('tun_dst', tdst, 'ipv4');
  for (const n of ['tun_ipv6_src', 'tun_ipv6_dst']) {
    const x = get(n);
    if (x) s += addrMasked(n, x, 'ipv6');
  }
  const md = get('metadata');
  if (md) s += hexMasked('metadata', md, 8);
  const inPort = get('in_port');
  if (inPort) s += `in_port=${formatPort(Number(inPort.value))},`;
  const vlan = get('vlan_vid');
  if (vlan) s += formatVlan(vlan);
  const dlSrc = get('eth_src');
  if (dlSrc) s += addrMasked('dl_src', dlSrc, 'mac');
  const dlDst = get('eth_dst');
  if (dlDst) s += addrMasked('dl_dst', dlDst, 'mac');
  if (!skipType && dlType !== undefined) s += `dl_type=0x${dlType.toString(16).padStart(4, '0')},`;
  const isArp = dlType === 0x0806 || dlType === 0x8035;
  if (dlType === 0x86dd) {
    for (const n of ['ipv6_src', 'ipv6_dst']) {
      const x = get(n);
      if (x) s += addrMasked(n, x, 'ipv6');
    }
  } else if (isArp) {
    for (const n of ['arp_spa', 'arp_tpa']) {
      const x = get(n);
      if (x) s += addrMasked(n, x, 'ipv4');
    }
  } else {
    for (const n of ['nw_src', 'nw_dst']) {
      const x = get(n);
      if (x) s += addrMasked(n, x, 'ipv4');
    }
  }
  const arpOp = get('arp_op');
  if (isArp && arpOp) s += `arp_op=${arpOp.value},`;
  if (!skipProto && proto && !isArp) s += `nw_proto=${proto.value},`;
  if (isArp) {
    for (const n of ['arp_sha', 'arp_tha']) {
      const x = get(n);
      if (x) s += addrMasked(n, x, 'mac');
    }
  }
  const dscp = get('ip_dscp');
  if (dscp) s += `nw_tos=${Number(dscp.value) << 2},`;
  const ttl = get('nw_ttl');
  if (ttl) s += `nw_ttl=${ttl.value},`;
  const p = proto ? Number(proto.value) : undefined;
  if (dlType === 0x0800 && p === 1) {
    const t = get('icmp_type');
    if (t) s += `icmp_type=${t.value},`;
    const c = get('icmp_code');
    if (c) s += `icmp_code=${c.value},`;
  } else if (dlType === 0x86dd && p === 58) {
    const t = get('icmpv6_type');
    if (t) s += `icmp_type=${t.value},`;
    const c = get('icmpv6_code');
    if (c) s += `icmp_code=${c.value},`;
    const nd = get('nd_target');
    if (nd) s += addrMasked('nd_target', nd, 'ipv6');
    for (const n of ['nd_sll', 'nd_tll']) {
      const x = get(n);
      if (x) s += addrMasked(n, x, 'mac');
    }
  } else {
    const prefix = p === 17 ? 'udp' : p === 132 ? 'sctp' : 'tcp';
    const a = get(`${prefix}_src`);
    if (a) s += be16Masked('tp_src', a);
    const b = get(`${prefix}_dst`);
    if (b) s += be16Masked('tp_dst', b);
  }
  const tf = get('tcp_flags');
  if (tf && p === 6)
    s += `tcp_flags=${formatFlags(tf.value & 0xfffn, (tf.mask ?? 0xfffn) & 0xfffn, 0xfffn, TCP_FLAG_BITS)},`;
  // Anything this formatter has no slot for is still shown rather than hidden.
  const shown = new Set([
    'pkt_mark',
    'conj_id',
    'ct_state',
    'ct_zone',
    'ct_mark',
    'ct_label',
    'ct_nw_src',
    'ct_ipv6_src',
    'ct_nw_dst',
    'ct_ipv6_dst',
    'ct_nw_proto',
    'ct_tp_src',
    'ct_tp_dst',
    'eth_type',
    'ip_proto',
    'tun_id',
    'tun_src',
    'tun_dst',
    'tun_ipv6_src',
    'tun_ipv6_dst',
    'nw_ttl',
    'metadata',
    'in_port',
    'vlan_vid',
    'eth_src',
    'eth_dst',
    'ipv6_src',
    'ipv6_dst',
    'arp_spa',
    'arp_tpa',
    'nw_src',
    'nw_dst',
    'arp_op',
    'arp_sha',
    'arp_tha',
    'ip_dscp',
    'icmp_type',
    'icmp_code',
    'icmpv6_type',
    'icmpv6_code',
    'nd_target',
    'nd_sll',
    'nd_tll',
    'tcp_src',
    'tcp_dst',
    'udp_src',
    'udp_dst',
    'sctp_src',
    'sctp_dst',
    'tcp_flags',
  ]);
  for (const [name, x] of m) {
    if (shown.has(name) || /^reg\d+$/.test(name)) continue;
    const f = lookupField(name);
    s += f
      ? `${name}=${formatFieldValue(f, x.value, x.mask)},`
      : `${name}=${hexAlt(x.value)}${x.mask === undefined ? '' : `/${hexAlt(x.mask)}`},`;
  }
  return s.endsWith(',') ? s.slice(0, -1) : s;
}

function formatVlan(mf: MatchField): string {
  // OXM vlan_vid maps onto OVS's vlan_tci: bit 0x1000 is "VLAN present" (CFI).
  const tci = mf.value & 0x1fffn;
  const mask = (mf.mask ?? 0x1fffn) & 0x1fffn;
  const vidMask = mask & 0xfffn;
  if ((mask & 0x1000n) !== 0n && (tci & 0x1000n) !== 0n && vidMask === 0xfffn)
    return `dl_vlan=${tci & 0xfffn},`;
  const hex = (v: bigint): string => `0x${v.toString(16).padStart(4, '0')}`;
  return `vlan_tci=${hex(tci)}/${hex(mask)},`;
}

export function formatSubfield(sf: Subfield): string {
  const f = getField(sf.field);
  const width = refWidth(f.name);
  const name = f.nxmName;
  if (sf.start === 0 && sf.end === width - 1) return `${name}[]`;
  if (sf.start === sf.end) return `${name}[${sf.start}]`;
  return `${name}[${sf.start}..${sf.end}]`;
}

function hexBytes(b: Buffer, sep: string): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(sep);
}

/** ds_put_hex over `bytes` bytes: 0x-prefixed, no leading zeros, "0" for zero. */
function putHex(v: bigint): string {
  return hexAlt(v);
}

function formatLearnSpec(spec: LearnSpec): string {
  const bits = (sf: Subfield): number => sf.end - sf.start + 1;
  if (spec.kind === 'output') return `output:${formatSubfield(spec.src)}`;
  if (spec.kind === 'load') {
    const src = 'value' in spec.src ? putHex(spec.src.value) : formatSubfield(spec.src);
    return `load:${src}->${formatSubfield(spec.dst)}`;
  }
  const dstField = getField(spec.dst.field);
  if ('value' in spec.src) {
    if (spec.dst.start === 0 && bits(spec.dst) === refWidth(dstField.name)) {
      return `${mfName(dstField.name === 'in_port16' ? 'in_port' : dstField.name).replace('in_port_oxm', 'in_port')}=${formatFieldValue(dstField, spec.src.value)}`;
    }
    return `${formatSubfield(spec.dst)}=${putHex(spec.src.value)}`;
  }
  if (spec.src.field === spec.dst.field && spec.src.start === spec.dst.start) return formatSubfield(spec.dst);
  return `${formatSubfield(spec.dst)}=${formatSubfield(spec.src)}`;
}

function formatNat(n: NonNullable<Extract<Action, { type: 'ct' }>['nat']>): string {
  if (!n.kind) return 'nat';
  let s = `nat(${n.kind}`;
  if (n.addrMin !== undefined) {
    const v6 = n.addrMin.includes(':');
    const br = (a: string): string => (v6 && n.portMin ? `[${a}]` : a);
    s += `=${br(n.addrMin)}`;
    if (n.addrMax !== undefined && n.addrMax !== n.addrMin) s += `-${br(n.addrMax)}`;
    if (n.portMin) {
      s += `:${n.portMin}`;
      if (n.portMax && n.portMax !== n.portMin) s += `-${n.portMax}`;
    }
    if (n.persistent) s += ',persistent';
    if (n.hash) s += ',hash';
    if (n.random) s += ',random';
  }
  return `${s})`;
}

const ALG_NAMES: Record<number, string> = { 21: 'ftp', 69: 'tftp' };

export function formatAction(a: Action): string {
  switch (a.type) {
    case 'output':
      if (a.port === OFPP.CONTROLLER) return `CONTROLLER:${a.maxLen ?? 65535}`;
      return a.port < OFPP.MAX ? `output:${a.port}` : formatPort(a.port);
    case 'output_reg':
      return `output:${formatSubfield(a.src)}`;
    case 'group':
      return `group:${a.groupId}`;
    case 'set_field': {
      const f = getField(a.field);
      return `set_field:${formatFieldValue(f, a.value, a.mask)}->${mfName(f.name)}`;
    }
    case 'move':
      return `move:${formatSubfield(a.src)}->${formatSubfield(a.dst)}`;
    case 'resubmit': {
      const port = a.port === undefined ? '' : formatPort(a.port);
      if (a.table === undefined && !a.ct) return `resubmit:${port}`;
      return `resubmit(${port},${a.table ?? ''}${a.ct ? ',ct' : ''})`;
    }
    case 'conjunction':
      return `conjunction(${a.id},${a.clause}/${a.nClauses})`;
    case 'ct': {
      let s = 'ct(';
      if (a.commit) s += 'commit,';
      if (a.force) s += 'force,';
      if (a.table !== undefined) s += `table=${a.table},`;
      if (typeof a.zone === 'object') s += `zone=${formatSubfield(a.zone)},`;
      else if (a.zone) s += `zone=${a.zone},`;
      if (a.nat) s += `${formatNat(a.nat)},`;
      if (a.exec?.length) s += `exec(${formatActions(a.exec)}),`;
      if (a.alg) s += `alg=${ALG_NAMES[a.alg] ?? a.alg},`;
      if (s.endsWith(',')) s = s.slice(0, -1);
      return `${s})`;
    }
    case 'ct_clear':
      return 'ct_clear';
    case 'dec_ttl':
      return 'dec_ttl';
    case 'controller': {
      const reason = a.reason ?? 'action';
      const maxLen = a.maxLen ?? 65535;
      if (reason === 'action' && !a.controllerId && !a.userdata?.length && !a.pause && !a.meterId) {
        return `CONTROLLER:${maxLen}`;
      }
      const parts: string[] = [];
      if (reason !== 'action') parts.push(`reason=${reason}`);
      if (maxLen !== 65535) parts.push(`max_len=${maxLen}`);
      if (a.controllerId) parts.push(`id=${a.controllerId}`);
      if (a.userdata?.length) parts.push(`userdata=${hexBytes(a.userdata, '.')}`);
      if (a.pause) parts.push('pause');
      if (a.meterId) parts.push(`meter_id=${a.meterId}`);
      return `controller(${parts.join(',')})`;
    }
    case 'learn': {
      let s = `learn(table=${a.table}`;
      if (a.idleTimeout) s += `,idle_timeout=${a.idleTimeout}`;
      if (a.hardTimeout) s += `,hard_timeout=${a.hardTimeout}`;
      if (a.finIdleTimeout) s += `,fin_idle_timeout=${a.finIdleTimeout}`;
      if (a.finHardTimeout) s += `,fin_hard_timeout=${a.finHardTimeout}`;
      if (a.priority !== undefined && a.priority !== OFP_DEFAULT_PRIORITY) s += `,priority=${a.priority}`;
      if (a.sendFlowRem) s += ',send_flow_rem';
      if (a.deleteLearned) s += ',delete_learned';
      if (a.cookie) s += `,cookie=${hexAlt(a.cookie)}`;
      for (const spec of a.specs) s += `,${formatLearnSpec(spec)}`;
      return `${s})`;
    }
    case 'note':
      return `note:${hexBytes(a.data, '.')}`;
    case 'push_vlan':
      return `push_vlan:0x${a.ethertype.toString(16)}`;
    case 'pop_vlan':
      return 'pop_vlan';
    case 'meter':
      return `meter:${a.meterId}`;
    case 'exit':
      return 'exit';
    case 'unknown':
      return `unknown(${hexBytes(a.raw, '')})`;
    case 'clear_actions':
      return 'clear_actions';
    case 'write_actions':
      return `write_actions(${formatActions(a.actions)})`;
    case 'write_metadata':
      return `write_metadata:${hexAlt(a.value)}${a.mask === undefined ? '' : `/${hexAlt(a.mask)}`}`;
    case 'goto_table':
      return `goto_table:${a.table}`;
  }
}

/** `ofpacts_format`: comma-separated actions, `drop` for none. */
export function formatActions(actions: readonly Action[]): string {
  return actions.length ? actions.map(formatAction).join(',') : 'drop';
}

function formatFlowFlags(flags: number): string {
  let s = '';
  if (flags & OFPFF.SEND_FLOW_REM) s += 'send_flow_rem ';
  if (flags & OFPFF.CHECK_OVERLAP) s += 'check_overlap ';
  if (flags & OFPFF.RESET_COUNTS) s += 'reset_counts ';
  if (flags & OFPFF.NO_PKT_COUNTS) s += 'no_packet_counts ';
  if (flags & OFPFF.NO_BYT_COUNTS) s += 'no_byte_counts ';
  return s;
}

export interface FormatOptions {
  /** Include duration and counters, like dump-flows without --no-stats. */
  stats?: boolean;
}

/** One flow in `ovs-ofctl dump-flows` syntax (without the leading space ovs-ofctl prints). */
export function formatFlow(flow: Flow | FlowStats, opts: FormatOptions = {}): string {
  const st = flow as FlowStats;
  const stats = opts.stats === true;
  let s = '';
  const cookie = flow.cookie ?? 0n;
  if (stats || cookie) s += `cookie=0x${cookie.toString(16)}, `;
  if (stats) {
    const sec = st.durationSec ?? 0;
    const ms = Math.floor((st.durationNsec ?? 0) / 1_000_000);
    s += `duration=${sec}.${String(ms).padStart(3, '0')}s, `;
  }
  const table = flow.table ?? 0;
  if (stats || table) s += `table=${table}, `;
  if (stats) s += `n_packets=${st.packetCount ?? 0n}, n_bytes=${st.byteCount ?? 0n}, `;
  if (flow.idleTimeout) s += `idle_timeout=${flow.idleTimeout}, `;
  if (flow.hardTimeout) s += `hard_timeout=${flow.hardTimeout}, `;
  if (flow.flags) s += formatFlowFlags(flow.flags);
  if (flow.importance) s += `importance=${flow.importance}, `;
  if (stats && st.idleAgeSec !== undefined) s += `idle_age=${st.idleAgeSec}, `;
  const m = formatMatch(flow.match, flow.priority ?? OFP_DEFAULT_PRIORITY);
  if (m) s += `${m} `;
  return `${s}actions=${formatActions(flow.actions)}`;
}

export function reasonName(code: number): PacketInReason | undefined {
  return (Object.keys(OFPR) as PacketInReason[]).find((k) => OFPR[k] === code);
}
