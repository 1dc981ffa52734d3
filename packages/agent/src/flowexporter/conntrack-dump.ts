/**
 * Parses `ovs-appctl dpctl/dump-conntrack -m -s` output (OVS lib/ct-dpif.c's format), the
 * conntrack source of the userspace (netdev) datapath, one entry per line:
 *
 *   tcp,orig=(src=10.10.0.2,dst=10.96.0.10,sport=40000,dport=80),reply=(src=10.10.0.3,dst=10.10.0.2,
 *   sport=8080,dport=40000),id=123,zone=65520,status=CONFIRMED,timeout=86399,mark=19,
 *   labels=0x500000000,protoinfo=(state_orig=ESTABLISHED,state_reply=ESTABLISHED,...)
 *
 * Counters (`packets=`, `bytes=` in the tuples) and timestamps (`start=`, `stop=`) appear only where
 * the datapath keeps them and they are non-zero: the kernel datapath does, OVS's userspace
 * conntrack keeps neither (lib/conntrack.c leaves them zero), so on netdev they are absent.
 */

export interface CtTuple {
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
  readonly packets: number;
  readonly bytes: number;
}

export interface ConntrackEntry {
  /** IANA protocol number. */
  readonly protocol: number;
  readonly orig: CtTuple;
  readonly reply: CtTuple;
  readonly zone: number;
  readonly mark: number;
  /** The 128-bit ct_label. */
  readonly labels: bigint;
  readonly id: number | undefined;
  /** Linux-style status bits (CT_DPIF_STATUS_*), 0 when not printed. */
  readonly status: number;
  readonly timeout: number | undefined;
  /** TCP state as the kernel names it (`ESTABLISHED`, `TIME_WAIT`, `CLOSE`, ...); '' for other protocols. */
  readonly tcpState: string;
  /** ms since the epoch, when the datapath keeps timestamps. */
  readonly startMs: number | undefined;
  readonly stopMs: number | undefined;
}

const PROTOCOLS: Readonly<Record<string, number>> = {
  icmp: 1,
  igmp: 2,
  tcp: 6,
  udp: 17,
  icmpv6: 58,
  sctp: 132,
  udplite: 136,
  dccp: 33,
};

/** Status bit names OVS prints (the kernel's IPS_* bits). */
const STATUS_BITS: Readonly<Record<string, number>> = {
  EXPECTED: 1 << 0,
  SEEN_REPLY: 1 << 1,
  ASSURED: 1 << 2,
  CONFIRMED: 1 << 3,
  SRC_NAT: 1 << 4,
  DST_NAT: 1 << 5,
  SEQ_ADJUST: 1 << 6,
  SRC_NAT_DONE: 1 << 7,
  DST_NAT_DONE: 1 << 8,
  DYING: 1 << 9,
  FIXED_TIMEOUT: 1 << 10,
  TEMPLATE: 1 << 11,
  UNTRACKED: 1 << 12,
  HELPER: 1 << 13,
  OFFLOAD: 1 << 14,
};
export const CT_STATUS_DYING = STATUS_BITS.DYING!;

/** OVS's TCP states in enum order; it prints the larger of the two directions' states. */
const TCP_STATES = [
  'CLOSED',
  'LISTEN',
  'SYN_SENT',
  'SYN_RECV',
  'ESTABLISHED',
  'CLOSE_WAIT',
  'FIN_WAIT_1',
  'CLOSING',
  'LAST_ACK',
  'FIN_WAIT_2',
  'TIME_WAIT',
];

/**
 * One state for the connection, as OVS prints it without -m (the larger direction, FIN_WAIT_2 as
 * TIME_WAIT, SYN_RECV as ESTABLISHED) and named as the kernel's conntrack names it (CLOSED is
 * CLOSE), so records read the same on either datapath.
 */
function tcpStateOf(info: Map<string, string>): string {
  const single = info.get('state');
  const rank = (s: string | undefined) => (s === undefined ? -1 : TCP_STATES.indexOf(s));
  let state = single ?? '';
  if (single === undefined) {
    const o = info.get('state_orig');
    const r = info.get('state_reply');
    state = rank(o) >= rank(r) ? (o ?? '') : (r ?? '');
  }
  if (state === 'FIN_WAIT_2') return 'TIME_WAIT';
  if (state === 'SYN_RECV') return 'ESTABLISHED';
  if (state === 'CLOSED') return 'CLOSE';
  return state;
}

/** Splits on commas outside parentheses. */
function topLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41) depth--;
    else if (c === 44 && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

function keyValues(s: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const part of topLevel(s)) {
    const eq = part.indexOf('=');
    if (eq > 0) m.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return m;
}

const inner = (v: string | undefined): string =>
  v?.startsWith('(') && v.endsWith(')') ? v.slice(1, -1) : '';

/**
 * One direction's tuple as OVS prints it: addresses, then ports (or ICMP id/type/code), then
 * counters when kept. One regular expression per line is most of a poll's parsing cost, so the
 * common shape is matched at once; anything else goes through the generic key=value reader.
 */
const TUPLE = String.raw`src=([^,)]+),dst=([^,)]+),(?:sport=(\d+),dport=(\d+)|id=(\d+),type=\d+,code=\d+)(?:,packets=(\d+),bytes=(\d+))?`;
const TUPLES = new RegExp(String.raw`^([a-z0-9]+),orig=\(${TUPLE}\),reply=\(${TUPLE}\)`);

function tupleAt(m: RegExpExecArray, i: number): CtTuple {
  const icmpId = m[i + 4];
  return {
    src: m[i]!,
    dst: m[i + 1]!,
    sport: Number(m[i + 2] ?? icmpId ?? 0),
    dport: Number(m[i + 3] ?? icmpId ?? 0),
    packets: Number(m[i + 5] ?? 0),
    bytes: Number(m[i + 6] ?? 0),
  };
}

/** OVS prints local time without a zone; the agent runs with the Node's clock in UTC, as Antrea assumes. */
const timestamp = (v: string | undefined): number | undefined => (v ? Date.parse(`${v}Z`) : undefined);

/** One line, or undefined for lines that are not an IPv4/IPv6 conntrack entry. */
export function parseConntrackLine(line: string): ConntrackEntry | undefined {
  const m = TUPLES.exec(line);
  if (!m) return undefined;
  const protocol = PROTOCOLS[m[1]!] ?? Number(m[1]);
  if (!Number.isInteger(protocol)) return undefined;
  // The rest: start, stop, id, zone, status, timeout, mark, labels, protoinfo=(...), helper.
  const kv = keyValues(line.slice(m[0].length + 1));
  let status = 0;
  for (const flag of (kv.get('status') ?? '').split('|')) status |= STATUS_BITS[flag] ?? 0;
  const labels = kv.get('labels');
  const id = kv.get('id');
  const timeout = kv.get('timeout');
  return {
    protocol,
    orig: tupleAt(m, 2),
    reply: tupleAt(m, 9),
    zone: Number(kv.get('zone') ?? 0),
    mark: Number(kv.get('mark') ?? 0),
    labels: labels ? BigInt(labels) : 0n,
    id: id === undefined ? undefined : Number(id),
    status,
    timeout: timeout === undefined ? undefined : Number(timeout),
    tcpState: protocol === 6 ? tcpStateOf(keyValues(inner(kv.get('protoinfo')))) : '',
    startMs: timestamp(kv.get('start')),
    stopMs: timestamp(kv.get('stop')),
  };
}

/** The entries of `zone` among `lines`, appended to `out` (a large dump can be read in slices). */
export function parseConntrackLines(
  lines: readonly string[],
  zone: number,
  out: ConntrackEntry[] = [],
): ConntrackEntry[] {
  const inner = `zone=${zone},`;
  const last = `zone=${zone}`;
  for (const line of lines) {
    // Cheap zone filter before the full parse: most of a Node's entries may be in other zones.
    if (!line.includes(inner) && !line.endsWith(last)) continue;
    const e = parseConntrackLine(line);
    if (e && e.zone === zone) out.push(e);
  }
  return out;
}

/** Every entry of a dump in `zone`. */
export const parseConntrackDump = (text: string, zone: number): ConntrackEntry[] =>
  parseConntrackLines(text.split('\n'), zone);
