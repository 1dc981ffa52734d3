import { AgentError } from '../../errors.js';

/**
 * A DNS message decoder (RFC 1035 section 4) for what FQDN policies need from a response: the
 * questions and the A and CNAME answers. Pure functions over bytes; anything malformed throws
 * AGENT_DNS_MALFORMED and never reads outside the buffer (the input comes from the network).
 */

export const DNS_TYPE = Object.freeze({ A: 1, CNAME: 5, AAAA: 28 });
const CLASS_IN = 1;
const HEADER_LEN = 12;
/** Compression pointers followed for one name at most (a loop would never end otherwise). */
const MAX_POINTERS = 32;
const MAX_NAME_LEN = 255;

export interface DnsQuestion {
  readonly name: string;
  readonly type: number;
}

/** An answer record; `data` is the dotted IPv4 address (A) or the target name (CNAME), else empty. */
export interface DnsRecord {
  readonly name: string;
  readonly type: number;
  readonly ttl: number;
  readonly data: string;
}

export interface DnsMessage {
  readonly id: number;
  readonly response: boolean;
  readonly rcode: number;
  readonly questions: readonly DnsQuestion[];
  readonly answers: readonly DnsRecord[];
}

const malformed = (why: string) => new AgentError('AGENT_DNS_MALFORMED', `malformed DNS message: ${why}`);

/** Lower case without the trailing dot: the form names are compared in (DNS names are case-insensitive). */
export function normalizeName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

class Reader {
  constructor(
    private readonly buf: Uint8Array,
    public pos: number,
  ) {}

  need(n: number): void {
    if (this.pos + n > this.buf.length) throw malformed('truncated');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  u16(): number {
    this.need(2);
    const v = (this.buf[this.pos]! << 8) | this.buf[this.pos + 1]!;
    this.pos += 2;
    return v;
  }

  u32(): number {
    return this.u16() * 0x10000 + this.u16();
  }

  /** A possibly compressed name; the reader ends after the name's bytes at this position. */
  name(): string {
    const labels: string[] = [];
    let at = this.pos;
    let end: number | undefined;
    let pointers = 0;
    let length = 0;
    for (;;) {
      if (at >= this.buf.length) throw malformed('name runs past the message');
      const len = this.buf[at]!;
      if ((len & 0xc0) === 0xc0) {
        if (at + 1 >= this.buf.length) throw malformed('truncated pointer');
        if (++pointers > MAX_POINTERS) throw malformed('compression loop');
        end ??= at + 2;
        at = ((len & 0x3f) << 8) | this.buf[at + 1]!;
        continue;
      }
      if (len & 0xc0) throw malformed('unknown label type');
      if (len === 0) {
        end ??= at + 1;
        break;
      }
      if (at + 1 + len > this.buf.length) throw malformed('label runs past the message');
      length += len + 1;
      if (length > MAX_NAME_LEN) throw malformed('name longer than 255 bytes');
      labels.push(String.fromCharCode(...this.buf.subarray(at + 1, at + 1 + len)));
      at += 1 + len;
    }
    this.pos = end;
    return normalizeName(labels.join('.'));
  }
}

/** Decodes one DNS message (UDP payload, or a TCP message without its length prefix). */
export function parseDnsMessage(buf: Uint8Array): DnsMessage {
  if (buf.length < HEADER_LEN) throw malformed('shorter than the header');
  const r = new Reader(buf, 0);
  const id = r.u16();
  const flags = r.u16();
  const qd = r.u16();
  const an = r.u16();
  r.u16(); // authority records: not needed
  r.u16(); // additional records: not needed
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < qd; i++) {
    const name = r.name();
    const type = r.u16();
    r.u16(); // class
    questions.push({ name, type });
  }
  const answers: DnsRecord[] = [];
  for (let i = 0; i < an; i++) {
    const name = r.name();
    const type = r.u16();
    const klass = r.u16();
    const ttl = r.u32();
    const rdlength = r.u16();
    r.need(rdlength);
    const rdata = r.pos;
    let data = '';
    if (klass === CLASS_IN && type === DNS_TYPE.A) {
      if (rdlength !== 4) throw malformed('A record without 4 bytes');
      data = Array.from(buf.subarray(rdata, rdata + 4)).join('.');
    } else if (klass === CLASS_IN && type === DNS_TYPE.CNAME) {
      data = new Reader(buf, rdata).name();
    }
    r.pos = rdata + rdlength;
    // A TTL with the top bit set is treated as 0 (RFC 2181 section 8).
    answers.push({ name, type, ttl: ttl > 0x7fffffff ? 0 : ttl, data });
  }
  return { id, response: (flags & 0x8000) !== 0, rcode: flags & 0x0f, questions, answers };
}

/** An address a name resolved to, with the TTL (seconds) of the A record that gave it. */
export interface ResolvedAddress {
  readonly ip: string;
  readonly ttl: number;
}

/** CNAME hops followed from one name (resolvers give up long before this). */
const MAX_CNAME_HOPS = 16;

/**
 * The addresses each name of a response stands for: an A record's owner gets its address, and a
 * name that is an alias (CNAME, also through a chain) gets the addresses of its target, with the A
 * record's TTL (as Antrea). The question name and every alias of the chain are keys, so a policy
 * can name the alias the Pod asked for or the canonical name.
 */
export function addressesByName(msg: DnsMessage): Map<string, ResolvedAddress[]> {
  const direct = new Map<string, ResolvedAddress[]>();
  const alias = new Map<string, string>();
  for (const a of msg.answers) {
    if (a.type === DNS_TYPE.A) {
      const list = direct.get(a.name) ?? [];
      list.push({ ip: a.data, ttl: a.ttl });
      direct.set(a.name, list);
    } else if (a.type === DNS_TYPE.CNAME && a.data) alias.set(a.name, a.data);
  }
  const names = new Set([...direct.keys(), ...alias.keys(), ...msg.questions.map((q) => q.name)]);
  const out = new Map<string, ResolvedAddress[]>();
  for (const name of names) {
    let at: string | undefined = name;
    const found: ResolvedAddress[] = [];
    for (let hops = 0; at !== undefined && hops <= MAX_CNAME_HOPS; hops++) {
      found.push(...(direct.get(at) ?? []));
      at = alias.get(at);
    }
    if (found.length > 0) out.set(name, found);
  }
  return out;
}

function encodeName(name: string): Buffer {
  const parts = normalizeName(name)
    .split('.')
    .filter((l) => l.length > 0);
  return Buffer.concat([
    ...parts.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])),
    Buffer.from([0]),
  ]);
}

/**
 * Encodes a message without name compression, recursion desired: the answers of the e2e DNS
 * responder (e2e/fqdn/dns-responder.ts) and of unit tests; the agent's own lookups go through
 * node:dns (dns-resolver.ts). Records of other types than A and CNAME are written with empty data.
 */
export function encodeDnsMessage(msg: DnsMessage): Buffer {
  const header = Buffer.alloc(HEADER_LEN);
  header.writeUInt16BE(msg.id, 0);
  header.writeUInt16BE((msg.response ? 0x8000 : 0) | 0x0100 | (msg.rcode & 0x0f), 2);
  header.writeUInt16BE(msg.questions.length, 4);
  header.writeUInt16BE(msg.answers.length, 6);
  const parts: Buffer[] = [header];
  for (const q of msg.questions) {
    const tail = Buffer.alloc(4);
    tail.writeUInt16BE(q.type, 0);
    tail.writeUInt16BE(CLASS_IN, 2);
    parts.push(encodeName(q.name), tail);
  }
  for (const a of msg.answers) {
    const rdata =
      a.type === DNS_TYPE.A
        ? Buffer.from(a.data.split('.').map(Number))
        : a.type === DNS_TYPE.CNAME
          ? encodeName(a.data)
          : Buffer.alloc(0);
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(a.type, 0);
    fixed.writeUInt16BE(CLASS_IN, 2);
    fixed.writeUInt32BE(a.ttl, 4);
    fixed.writeUInt16BE(rdata.length, 8);
    parts.push(encodeName(a.name), fixed, rdata);
  }
  return Buffer.concat(parts);
}
