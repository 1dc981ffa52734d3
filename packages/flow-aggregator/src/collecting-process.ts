import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import { type DecodedDataRecord, decodeMessage, type FlowServerTls, TemplateCache } from '@antrea-ts/ipfix';
import type { Logger } from 'pino';
import { FlowAggregatorError } from './errors.js';

/** `tls`: the TCP collector inside mutual TLS (Antrea's default aggregatorTransportProtocol). */
export type CollectorTransport = 'tcp' | 'udp' | 'tls';

/**
 * UDP exporter addresses whose templates are kept (one per agent; a cluster has at most a few
 * thousand Nodes). Past it the longest silent one is forgotten: should it speak again, its records
 * decode again after its next template refresh.
 */
export const MAX_UDP_EXPORTERS = 10_000;

export interface CollectingProcessOptions {
  readonly host: string;
  /** 4739 in Antrea; 0 picks a free port. */
  readonly port: number;
  readonly transports: readonly CollectorTransport[];
  /** The serving certificate and the CA the exporters' client certificates must chain to (`tls`). */
  readonly tls?: FlowServerTls;
  readonly logger: Logger;
  /** Each decoded message's data records, as they arrive. */
  readonly onRecords: (records: readonly DecodedDataRecord[], domainId: number) => void;
  /** MAX_UDP_EXPORTERS unless set (tests). */
  readonly maxUdpExporters?: number;
}

/**
 * The Flow Aggregator's IPFIX collecting process: agents' exporting processes connect over TCP
 * (one template cache per connection) or send UDP datagrams (one cache per exporter address), and
 * every data record goes to `onRecords` as soon as its message is decoded: nothing is kept here.
 */
export class CollectingProcess {
  private readonly log: Logger;
  private tcp: net.Server | undefined;
  private udp: dgram.Socket | undefined;
  private readonly connections = new Set<net.Socket>();
  private readonly udpCaches = new Map<string, TemplateCache>();
  private boundPort = 0;
  /** Messages that did not decode. */
  decodeErrors = 0;
  messages = 0;

  constructor(private readonly o: CollectingProcessOptions) {
    this.log = o.logger.child({ component: 'collecting-process' });
  }

  get port(): number {
    return this.boundPort;
  }

  get sessions(): number {
    return this.connections.size;
  }

  /** Listens on every transport; resolves with the port (TCP and UDP share it). */
  async start(): Promise<number> {
    let port = this.o.port;
    try {
      const secure = this.o.transports.includes('tls');
      if (secure && !this.o.tls)
        throw new FlowAggregatorError('FA_TLS', 'the tls collecting process needs its certificates');
      if (this.o.transports.includes('tcp') || secure) {
        const t = this.o.tls;
        const server =
          secure && t
            ? tls.createServer(
                {
                  ca: t.caPem,
                  cert: t.certPem,
                  key: t.keyPem,
                  // As Antrea's: only exporters with a client certificate from this CA.
                  requestCert: true,
                  rejectUnauthorized: true,
                  minVersion: 'TLSv1.2',
                },
                (s) => this.serve(s),
              )
            : net.createServer((s) => this.serve(s));
        this.tcp = server;
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, this.o.host, () => resolve());
        });
        port = (server.address() as net.AddressInfo).port;
      }
      if (this.o.transports.includes('udp')) {
        const socket = dgram.createSocket(net.isIPv6(this.o.host) ? 'udp6' : 'udp4');
        this.udp = socket;
        socket.on('message', (buf, peer) => this.onDatagram(buf, `${peer.address}:${peer.port}`));
        await new Promise<void>((resolve, reject) => {
          socket.once('error', reject);
          socket.bind(port, this.o.host, () => resolve());
        });
        port = socket.address().port;
      }
    } catch (err) {
      await this.stop();
      throw new FlowAggregatorError('FA_LISTEN', `cannot listen on ${this.o.host}:${port}: ${String(err)}`, {
        cause: err,
      });
    }
    this.boundPort = port;
    this.log.info({ port, transports: this.o.transports }, 'IPFIX collecting process listening');
    return port;
  }

  /** Idempotent. */
  async stop(): Promise<void> {
    for (const s of this.connections) s.destroy();
    const tcp = this.tcp;
    const udp = this.udp;
    this.tcp = undefined;
    this.udp = undefined;
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
  }

  /** UDP exporter addresses whose templates are kept. */
  get udpExporters(): number {
    return this.udpCaches.size;
  }

  private onDatagram(buf: Buffer, from: string): void {
    const known = this.udpCaches.get(from);
    const cache = known ?? new TemplateCache();
    this.take(buf, cache, from);
    if (known) {
      // Most recently heard from last, so the address evicted below is the longest silent.
      this.udpCaches.delete(from);
      this.udpCaches.set(from, known);
    } else if (cache.size > 0) {
      // Only an address that announced templates is remembered: datagrams that never do (noise,
      // scans) leave nothing behind. An agent that restarts comes back from a new port, so the
      // old ones are bounded too.
      this.udpCaches.set(from, cache);
      if (this.udpCaches.size > (this.o.maxUdpExporters ?? MAX_UDP_EXPORTERS)) {
        const oldest = this.udpCaches.keys().next().value as string;
        this.udpCaches.delete(oldest);
        this.log.info({ from: oldest }, 'forgetting the templates of the longest silent UDP exporter');
      }
    }
  }

  private serve(socket: net.Socket): void {
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    this.connections.add(socket);
    this.log.info({ from }, 'exporter connected');
    const cache = new TemplateCache();
    const chunks: Buffer[] = [];
    let buffered = 0;
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      buffered += chunk.length;
      if (buffered < 4) return;
      let stream = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      chunks.length = 0;
      // Each message states its own length in bytes 2-3 of its header: cut the stream there.
      for (;;) {
        if (stream.length < 4) break;
        const size = stream.readUInt16BE(2);
        if (size < 16) {
          this.decodeErrors++;
          this.log.warn({ from }, 'IPFIX stream out of sync; closing the session');
          socket.destroy();
          return;
        }
        if (stream.length < size) break;
        this.take(stream.subarray(0, size), cache, from);
        stream = stream.subarray(size);
      }
      if (stream.length) chunks.push(stream);
      buffered = stream.length;
    });
    socket.on('error', (err) => this.log.debug({ err, from }, 'exporter session error'));
    socket.on('close', () => {
      this.connections.delete(socket);
      this.log.info({ from }, 'exporter disconnected');
    });
  }

  private take(buf: Buffer, cache: TemplateCache, from: string): void {
    let message: ReturnType<typeof decodeMessage>;
    try {
      message = decodeMessage(buf, cache);
    } catch (err) {
      this.decodeErrors++;
      this.log.warn({ err, from }, 'undecodable IPFIX message');
      return;
    }
    this.messages++;
    if (message.records.length) this.o.onRecords(message.records, message.domainId);
  }
}
