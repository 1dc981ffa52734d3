import {
  type Action,
  type CtAction,
  type LearnSpec,
  load,
  type NatSpec,
  refWidth,
  type Subfield,
} from '../codec/actions.js';
import { OFPFF, OFPP, OFPR, type PacketInReason } from '../codec/constants.js';
import { getField, lookupField, parseIntText, parsePort } from '../codec/fields.js';
import type { Flow } from '../codec/flow-mod.js';
import {
  type Match,
  type MatchField,
  normalizeField,
  PROTOCOL_SHORTHANDS,
  parseFieldValue,
  splitRegisters,
} from '../codec/match.js';
import { OfParseError } from '../errors.js';

/**
 * Parses flows in the syntax `ovs-ofctl dump-flows` prints and `add-flow` accepts (the subset this
 * package can encode). Statistics fields (duration, n_packets, ...) are accepted and ignored.
 */

const IGNORED_KEYS = new Set(['duration', 'n_packets', 'n_bytes', 'idle_age', 'hard_age']);
const FLAG_KEYS: Record<string, number> = {
  send_flow_rem: OFPFF.SEND_FLOW_REM,
  check_overlap: OFPFF.CHECK_OVERLAP,
  reset_counts: OFPFF.RESET_COUNTS,
  no_packet_counts: OFPFF.NO_PKT_COUNTS,
  no_byte_counts: OFPFF.NO_BYT_COUNTS,
};

/** Splits on commas that are not inside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw new OfParseError(`unbalanced parentheses in "${s}"`);
  if (cur.length) out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x.length > 0);
}

function inner(text: string, name: string): string {
  if (!text.startsWith(`${name}(`) || !text.endsWith(')'))
    throw new OfParseError(`expected ${name}(...) in "${text}"`);
  return text.slice(name.length + 1, -1);
}

/** `NXM_NX_REG0[0..15]`, `reg0[]`, `NXM_OF_IN_PORT[]`, `reg1[3]`. */
export function parseSubfield(text: string): Subfield {
  const m = /^([A-Za-z0-9_]+)\[(?:(\d+)(?:\.\.(\d+))?)?\]$/.exec(text.trim());
  if (!m) throw new OfParseError(`bad sub-field "${text}"`);
  const f = lookupField(m[1]!);
  if (!f) throw new OfParseError(`unknown field "${m[1]}"`);
  const name = f.name === 'in_port16' ? 'in_port' : f.name;
  if (m[2] === undefined) return { field: name, start: 0, end: refWidth(name) - 1 };
  const start = Number(m[2]);
  return { field: name, start, end: m[3] === undefined ? start : Number(m[3]) };
}

function parseMatchPart(tokens: string[], flow: Flow): void {
  const fields = new Map<string, MatchField>();
  const raw: Array<[string, string]> = [];
  for (const tok of tokens) {
    const eq = tok.indexOf('=');
    const key = eq < 0 ? tok : tok.slice(0, eq);
    const value = eq < 0 ? '' : tok.slice(eq + 1);
    if (IGNORED_KEYS.has(key)) continue;
    const shorthand = PROTOCOL_SHORTHANDS[key];
    if (shorthand && eq < 0) {
      for (const [n, v] of shorthand) fields.set(n, { field: n, value: BigInt(v) });
      continue;
    }
    if (key in FLAG_KEYS && eq < 0) {
      flow.flags = (flow.flags ?? 0) | FLAG_KEYS[key]!;
      continue;
    }
    switch (key) {
      case 'cookie': {
        flow.cookie = parseIntText(value.split('/')[0]!);
        continue;
      }
      case 'table':
        flow.table = Number(value);
        continue;
      case 'priority':
        flow.priority = Number(value);
        continue;
      case 'idle_timeout':
        flow.idleTimeout = Number(value);
        continue;
      case 'hard_timeout':
        flow.hardTimeout = Number(value);
        continue;
      case 'importance':
        flow.importance = Number(value);
        continue;
      default:
        raw.push([key, value]);
    }
  }
  // Protocol-dependent names (tp_src, nw_src under arp, icmp_type under ipv6) need eth_type/ip_proto first.
  const ethType = Number(
    fields.get('eth_type')?.value ?? raw.find(([k]) => k === 'dl_type' || k === 'eth_type')?.[1] ?? -1,
  );
  const protoText = raw.find(([k]) => k === 'nw_proto' || k === 'ip_proto')?.[1];
  const proto = Number(
    fields.get('ip_proto')?.value ?? (protoText !== undefined ? parseIntText(protoText) : -1),
  );
  const isArp = ethType === 0x0806 || ethType === 0x8035;
  for (const [key, value] of raw) {
    let name = key;
    let text = value;
    if (key === 'tp_src' || key === 'tp_dst') {
      const prefix = proto === 17 ? 'udp' : proto === 132 ? 'sctp' : 'tcp';
      name = `${prefix}_${key.slice(3)}`;
    } else if (isArp && (key === 'nw_src' || key === 'nw_dst')) {
      name = key === 'nw_src' ? 'arp_spa' : 'arp_tpa';
    } else if (isArp && (key === 'nw_proto' || key === 'ip_proto')) {
      name = 'arp_op';
    } else if (ethType === 0x86dd && (key === 'icmp_type' || key === 'icmp_code')) {
      name = key === 'icmp_type' ? 'icmpv6_type' : 'icmpv6_code';
    } else if (key === 'nw_tos') {
      name = 'ip_dscp';
      text = String(Number(parseIntText(value)) >> 2);
    } else if (key === 'dl_vlan') {
      name = 'vlan_vid';
      text = String(0x1000 | Number(value));
    } else if (key === 'vlan_tci') {
      name = 'vlan_vid';
    }
    const f = lookupField(name);
    if (!f) throw new OfParseError(`unknown match field "${key}"`);
    const v = parseFieldValue(f, text);
    fields.set(f.name, normalizeField(f, v.value, v.mask));
  }
  flow.match = splitRegisters([...fields.values()]);
}

function parseNat(text: string): NatSpec {
  if (text === 'nat') return {};
  const body = splitTop(inner(text, 'nat'));
  const nat: NatSpec = {};
  for (const part of body) {
    if (part === 'persistent') nat.persistent = true;
    else if (part === 'hash') nat.hash = true;
    else if (part === 'random') nat.random = true;
    else if (part === 'src' || part === 'dst') nat.kind = part;
    else {
      const m = /^(src|dst)=(.*)$/.exec(part);
      if (!m) throw new OfParseError(`bad nat argument "${part}"`);
      nat.kind = m[1] as 'src' | 'dst';
      let rest = m[2]!;
      // [v6]-[v6]:ports | v4-v4:ports
      const v6 = /^\[([^\]]+)\](?:-\[([^\]]+)\])?(?::(\d+)(?:-(\d+))?)?$/.exec(rest);
      if (v6) {
        nat.addrMin = v6[1]!;
        if (v6[2]) nat.addrMax = v6[2];
        if (v6[3]) nat.portMin = Number(v6[3]);
        if (v6[4]) nat.portMax = Number(v6[4]);
        continue;
      }
      const colon = rest.lastIndexOf(':');
      if (colon >= 0 && !rest.slice(0, colon).includes(':') && rest.includes('.')) {
        const ports = rest.slice(colon + 1).split('-');
        nat.portMin = Number(ports[0]);
        if (ports[1]) nat.portMax = Number(ports[1]);
        rest = rest.slice(0, colon);
      }
      const addrs = rest.includes(':') ? [rest] : rest.split('-');
      nat.addrMin = addrs[0]!;
      if (addrs[1]) nat.addrMax = addrs[1];
    }
  }
  return nat;
}

function parseCt(text: string): CtAction {
  const a: CtAction = { type: 'ct' };
  for (const part of splitTop(inner(text, 'ct'))) {
    if (part === 'commit') a.commit = true;
    else if (part === 'force') a.force = true;
    else if (part.startsWith('table=')) a.table = Number(part.slice(6));
    else if (part.startsWith('zone=')) {
      const z = part.slice(5);
      a.zone = z.includes('[') ? parseSubfield(z) : Number(parseIntText(z));
    } else if (part.startsWith('alg=')) {
      const alg = part.slice(4);
      a.alg = alg === 'ftp' ? 21 : alg === 'tftp' ? 69 : Number(alg);
    } else if (part === 'nat' || part.startsWith('nat(')) a.nat = parseNat(part);
    else if (part.startsWith('exec(')) a.exec = parseActions(inner(part, 'exec'));
    else throw new OfParseError(`bad ct argument "${part}"`);
  }
  return a;
}

function parseController(text: string): Action {
  const a: Extract<Action, { type: 'controller' }> = { type: 'controller' };
  for (const part of splitTop(inner(text, 'controller'))) {
    const [k, v = ''] = part.split('=');
    if (k === 'reason') {
      if (!(v in OFPR)) throw new OfParseError(`bad packet-in reason "${v}"`);
      a.reason = v as PacketInReason;
    } else if (k === 'max_len') a.maxLen = Number(v);
    else if (k === 'id') a.controllerId = Number(v);
    else if (k === 'userdata') a.userdata = Buffer.from(v.split('.').map((x) => Number.parseInt(x, 16)));
    else if (k === 'pause') a.pause = true;
    else if (k === 'meter_id') a.meterId = Number(v);
    else throw new OfParseError(`bad controller argument "${part}"`);
  }
  return a;
}

function parseLearn(text: string): Action {
  const a: Extract<Action, { type: 'learn' }> = { type: 'learn', table: 0, specs: [] };
  for (const part of splitTop(inner(text, 'learn'))) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    switch (key) {
      case 'table':
        a.table = Number(value);
        continue;
      case 'idle_timeout':
        a.idleTimeout = Number(value);
        continue;
      case 'hard_timeout':
        a.hardTimeout = Number(value);
        continue;
      case 'fin_idle_timeout':
        a.finIdleTimeout = Number(value);
        continue;
      case 'fin_hard_timeout':
        a.finHardTimeout = Number(value);
        continue;
      case 'priority':
        a.priority = Number(value);
        continue;
      case 'cookie':
        a.cookie = parseIntText(value);
        continue;
      case 'send_flow_rem':
        a.sendFlowRem = true;
        continue;
      case 'delete_learned':
        a.deleteLearned = true;
        continue;
      default:
        break;
    }
    let spec: LearnSpec;
    if (part.startsWith('load:')) {
      const [src, dst] = part.slice(5).split('->') as [string, string];
      spec = {
        kind: 'load',
        dst: parseSubfield(dst),
        src: src.includes('[') ? parseSubfield(src) : { value: parseIntText(src) },
      };
    } else if (part.startsWith('output:')) {
      spec = { kind: 'output', src: parseSubfield(part.slice(7)) };
    } else if (eq < 0) {
      const sf = parseSubfield(part);
      spec = { kind: 'match', dst: sf, src: sf };
    } else if (key.includes('[')) {
      spec = {
        kind: 'match',
        dst: parseSubfield(key),
        src: value.includes('[') ? parseSubfield(value) : { value: parseIntText(value) },
      };
    } else {
      const f = lookupField(key);
      if (!f) throw new OfParseError(`bad learn argument "${part}"`);
      const name = f.name === 'in_port16' ? 'in_port' : f.name;
      spec = {
        kind: 'match',
        dst: { field: name, start: 0, end: refWidth(name) - 1 },
        src: { value: parseFieldValue(f, value).value },
      };
    }
    a.specs.push(spec);
  }
  return a;
}

function parseAction(text: string): Action[] {
  const t = text.trim();
  if (t === 'drop') return [];
  const simple: Record<string, Action> = {
    ct_clear: { type: 'ct_clear' },
    dec_ttl: { type: 'dec_ttl' },
    pop_vlan: { type: 'pop_vlan' },
    exit: { type: 'exit' },
    clear_actions: { type: 'clear_actions' },
  };
  if (simple[t]) return [simple[t]!];
  if (/^(IN_PORT|LOCAL|NORMAL|FLOOD|ALL|TABLE)$/i.test(t)) return [{ type: 'output', port: parsePort(t) }];
  if (/^CONTROLLER(:\d+)?$/i.test(t)) {
    const maxLen = t.includes(':') ? Number(t.split(':')[1]) : 65535;
    return [{ type: 'output', port: OFPP.CONTROLLER, ...(maxLen !== 65535 ? { maxLen } : {}) }];
  }
  if (/^\d+$/.test(t)) return [{ type: 'output', port: Number(t) }];
  const colon = t.indexOf(':');
  const paren = t.indexOf('(');
  const head =
    colon >= 0 && (paren < 0 || colon < paren) ? t.slice(0, colon) : paren >= 0 ? t.slice(0, paren) : t;
  const arg = colon >= 0 && (paren < 0 || colon < paren) ? t.slice(colon + 1) : '';
  switch (head) {
    case 'output':
      return [
        arg.includes('[')
          ? { type: 'output_reg', src: parseSubfield(arg) }
          : { type: 'output', port: parsePort(arg) },
      ];
    case 'group':
      return [{ type: 'group', groupId: Number(arg) }];
    case 'meter':
      return [{ type: 'meter', meterId: Number(arg) }];
    case 'goto_table':
      return [{ type: 'goto_table', table: Number(arg) }];
    case 'push_vlan':
      return [{ type: 'push_vlan', ethertype: Number(parseIntText(arg)) }];
    case 'note':
      return [{ type: 'note', data: Buffer.from(arg.split('.').map((x) => Number.parseInt(x, 16))) }];
    case 'write_metadata': {
      const [v, m] = arg.split('/');
      return [{ type: 'write_metadata', value: parseIntText(v!), ...(m ? { mask: parseIntText(m) } : {}) }];
    }
    case 'set_field': {
      const arrow = arg.lastIndexOf('->');
      const f = getField(arg.slice(arrow + 2) === 'in_port_oxm' ? 'in_port' : arg.slice(arrow + 2));
      const v = parseFieldValue(f, arg.slice(0, arrow));
      const mf = normalizeField(f, v.value, v.mask);
      return [
        {
          type: 'set_field',
          field: f.name,
          value: mf.value,
          ...(mf.mask !== undefined ? { mask: mf.mask } : {}),
        },
      ];
    }
    case 'load': {
      const [v, dst] = arg.split('->') as [string, string];
      const sf = parseSubfield(dst);
      return [load(sf.field, parseIntText(v), sf.start, sf.end)];
    }
    case 'move': {
      const [src, dst] = arg.split('->') as [string, string];
      return [{ type: 'move', src: parseSubfield(src), dst: parseSubfield(dst) }];
    }
    case 'resubmit': {
      if (arg) return [{ type: 'resubmit', port: parsePort(arg) }];
      const [port = '', table = '', ct] = inner(t, 'resubmit').split(',');
      return [
        {
          type: 'resubmit',
          ...(port ? { port: parsePort(port) } : {}),
          ...(table ? { table: Number(table) } : {}),
          ...(ct === 'ct' ? { ct: true } : {}),
        },
      ];
    }
    case 'conjunction': {
      const m = /^conjunction\((\d+),(\d+)\/(\d+)\)$/.exec(t);
      if (!m) throw new OfParseError(`bad conjunction "${t}"`);
      return [{ type: 'conjunction', id: Number(m[1]), clause: Number(m[2]), nClauses: Number(m[3]) }];
    }
    case 'ct':
      return [parseCt(t)];
    case 'controller':
      return [parseController(t)];
    case 'learn':
      return [parseLearn(t)];
    case 'write_actions':
      return [{ type: 'write_actions', actions: parseActions(inner(t, 'write_actions')) }];
    default:
      throw new OfParseError(`unsupported action "${t}"`);
  }
}

/** Parses a comma-separated action list (`drop` or empty for none). */
export function parseActions(text: string): Action[] {
  return splitTop(text).flatMap(parseAction);
}

/** Parses one flow line, e.g. `cookie=0x1, table=10, priority=200,ip,nw_src=10.0.0.0/24 actions=conjunction(1,1/3)`. */
export function parseFlow(line: string): Flow {
  const text = line.trim();
  const at = text.search(/(^|[\s,])actions=/);
  if (at < 0) throw new OfParseError(`no actions in "${line}"`);
  const left = text.slice(0, at);
  const right = text.slice(text.indexOf('actions=', at) + 'actions='.length);
  const flow: Flow = { match: [], actions: [] };
  parseMatchPart(
    left
      .split(/[\s,]+/)
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
    flow,
  );
  flow.actions = parseActions(right);
  return flow;
}

/** Parses a match alone (`ip,nw_src=10.0.0.0/24`). */
export function parseMatch(text: string): Match {
  const flow: Flow = { match: [], actions: [] };
  parseMatchPart(
    text
      .split(/[\s,]+/)
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
    flow,
  );
  return flow.match;
}
