import dgram from 'node:dgram';
import net from 'node:net';
import type { Logger } from 'pino';
import {
  type DecodedDataRecord,
  type DecodedMessage,
  decodeMessage,
  TemplateCache,
} from '../codec/message.js';
import { IpfixError } from '../errors.js';

export interface CollectedMessage {
  readonly transport: 'tcp' | 'udp';
  /** `address:port` of the exporter. */
  readonly from: string;
  readonly message: DecodedMessage;
}

export interface IpfixCollectorOptions {
  /** Address to listen on (TCP and UDP on the same port). */
  readonly host: string;
  /** 0 picks a free port (TCP's, then UDP binds the same number). */
  readonly port?: number;
  readonly logger: Logger;
}

/**
 * An IPFIX collecting process (RFC 7011 section 9) on TCP and UDP: decodes each message with the
 * templates its session announced (per TCP connection; per exporter address over UDP) and keeps
 * them. Our tests and benchmarks read Antrea's records through it; it is not a flow store.
 */
export class IpfixCollector {
  private readonly log: Logger;
  private tcp: net.Server | undefined;
  private udp: dgram.Socket | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly udpTemplates = new Map<string, TemplateCache>();
  readonly messages: CollectedMessage[] = [];
  private waiters: Array<() => void> = [];
  /** Messages that failed to decode. */
  decodeErrors = 0;

  constructor(private readonly o: IpfixCollectorOptions) {
    this.log = o.logger.child({ component: 'ipfix-collector' });
  }

  /** Listens on TCP and UDP; resolves with the port. */
  async start(): Promise<number> {
    const tcp = net.createServer((s) => this.accept(s));
    this.tcp = tcp;
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.o.port ?? 0, this.o.host, () => resolve());
    });
    const port = (tcp.address() as net.AddressInfo).port;
    const udp = dgram.createSocket(this.o.host.includes(':') ? 'udp6' : 'udp4');
    this.udp = udp;
    udp.on('message', (buf, rinfo) => {
      const from = `${rinfo.address}:${rinfo.port}`;
      const cache = this.udpTemplates.get(from) ?? new TemplateCache();
      this.udpTemplates.set(from, cache);
      this.decode(buf, cache, 'udp', from);
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, this.o.host, () => resolve());
    });
    return port;
  }

  /** Every data record received so far, in arrival order. */
  records(): DecodedDataRecord[] {
    return this.messages.flatMap((m) => m.message.records);
  }

  /** Resolves once `ready()` holds after some message arrived; rejects after `timeoutMs`. */
  async waitFor<T>(ready: () => T | undefined, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = ready();
      if (v !== undefined && v !== false) return v;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new IpfixError('IPFIX_CLOSED', `collector: condition not met within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Ends every TCP session (exporters see the connection drop); the listeners stay. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** Idempotent. */
  async stop(): Promise<void> {
    this.dropConnections();
    const tcp = this.tcp;
    this.tcp = undefined;
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    const udp = this.udp;
    this.udp = undefined;
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
    for (const w of this.waiters.splice(0)) w();
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    const cache = new TemplateCache();
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      // TCP carries a stream of messages, each framed by its header's length field.
      while (pending.length >= 4) {
        const length = pending.readUInt16BE(2);
        if (length < 16) {
          this.decodeErrors++;
          socket.destroy();
          return;
        }
        if (pending.length < length) break;
        this.decode(pending.subarray(0, length), cache, 'tcp', from);
        pending = pending.subarray(length);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
  }

  private decode(buf: Buffer, cache: TemplateCache, transport: 'tcp' | 'udp', from: string): void {
    try {
      this.messages.push({ transport, from, message: decodeMessage(buf, cache) });
    } catch (err) {
      this.decodeErrors++;
      this.log.warn({ err, from }, 'undecodable IPFIX message');
      return;
    }
    for (const w of this.waiters.splice(0)) w();
  }
}
