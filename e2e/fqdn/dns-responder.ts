import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { DNS_TYPE, type DnsRecord, encodeDnsMessage, normalizeName, parseDnsMessage } from '@antrea-ts/agent';

/** What the responder answers for one name. */
export type ZoneEntry =
  | { readonly a: string; readonly ttl: number }
  | { readonly cname: string; readonly ttl: number }
  /** Bytes that are no DNS message at all (the agent cannot parse them; the Pod must still get them). */
  | { readonly garbage: string }
  /** Over UDP only a truncated (TC) answer, so the client asks again over TCP, which gets `a`. */
  | { readonly a: string; readonly ttl: number; readonly tcpOnly: true };

/**
 * A tiny authoritative DNS server for tests (UDP and TCP on one address, port 53): A records and
 * CNAMEs (the chain is followed into the answer, as recursive servers do), NXDOMAIN for the rest.
 */
export class DnsResponder {
  private udp: Socket | undefined;
  private tcp: Server | undefined;
  /** Questions received, lower-cased, with the transport. */
  readonly asked: string[] = [];

  constructor(
    /** A Map, or any lookup (a benchmark answers names it makes up). */
    private readonly zone: { get(name: string): ZoneEntry | undefined },
    private readonly address: string,
    private readonly port = 53,
  ) {}

  async start(): Promise<void> {
    const udp = createSocket('udp4');
    udp.on('message', (msg, rinfo) => {
      const reply = this.answer(msg, 'udp');
      if (reply) udp.send(reply, rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(this.port, this.address, () => resolve());
    });
    this.udp = udp;
    const tcp = createServer((sock) => {
      let buf = Buffer.alloc(0);
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
          buf = buf.subarray(2 + msg.length);
          const reply = this.answer(msg, 'tcp');
          if (!reply) continue;
          const len = Buffer.alloc(2);
          len.writeUInt16BE(reply.length);
          sock.write(Buffer.concat([len, reply])); // one write: one segment holding the whole message
        }
      });
      sock.on('error', () => {});
    });
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.port, this.address, () => resolve());
    });
    this.tcp = tcp;
  }

  async stop(): Promise<void> {
    this.udp?.close();
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
  }

  private answer(msg: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined {
    let query: ReturnType<typeof parseDnsMessage>;
    try {
      query = parseDnsMessage(msg);
    } catch {
      return undefined;
    }
    const q = query.questions[0];
    if (!q) return undefined;
    this.asked.push(`${transport}:${q.name}`);
    const entry = this.zone.get(q.name);
    if (entry && 'garbage' in entry) return Buffer.from(entry.garbage);
    const answers: DnsRecord[] = [];
    let name = q.name;
    let at: ZoneEntry | undefined = entry;
    for (let hops = 0; at && q.type === DNS_TYPE.A && hops < 8; hops++) {
      if ('cname' in at) {
        answers.push({ name, type: DNS_TYPE.CNAME, ttl: at.ttl, data: at.cname });
        name = normalizeName(at.cname);
        at = this.zone.get(name);
      } else if ('a' in at) {
        answers.push({ name, type: DNS_TYPE.A, ttl: at.ttl, data: at.a });
        break;
      }
    }
    const truncated = entry !== undefined && 'tcpOnly' in entry && transport === 'udp';
    const reply = encodeDnsMessage({
      id: query.id,
      response: true,
      rcode: entry ? 0 : 3,
      questions: query.questions,
      answers: truncated ? [] : answers,
    });
    if (truncated) reply[2]! |= 0x02; // TC: ask again over TCP
    return reply;
  }
}
