import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { FieldValue } from '../codec/field-value.js';
import {
  dataRecordLength,
  encodeMessage,
  MESSAGE_HEADER_LENGTH,
  SET_HEADER_LENGTH,
  type TemplateRecord,
  templateRecordLength,
} from '../codec/message.js';
import { IpfixError } from '../errors.js';
import { type FlowClientTls, probeTls, tlsClientOptions } from './flow-tls.js';

/** `tls`: TCP inside mutual TLS (Antrea's IPFIX `tls` transport to the Flow Aggregator). */
export type IpfixTransport = 'tcp' | 'udp' | 'tls';

export interface IpfixExporterOptions {
  readonly host: string;
  readonly port: number;
  readonly transport: IpfixTransport;
  /** The collector's CA, the client certificate and the name to check (transport `tls`). */
  readonly tls?: FlowClientTls;
  /** Observation domain id in every message header. */
  readonly domainId: number;
  /** Templates sent at the start of every session (and, over UDP, again every refresh period). */
  readonly templates: readonly TemplateRecord[];
  readonly logger: Logger;
  /**
   * UDP only: resend the templates when this long has passed since they were last sent (RFC 7011
   * section 8.4 templateRefreshTimeout; 600 s as Antrea's exporters use).
   */
  readonly templateRefreshMs?: number;
  /**
   * Largest message; records are packed into messages up to this size. Default: 1400 bytes over
   * UDP (one datagram within a 1500-byte MTU path), 65535 over TCP.
   */
  readonly maxMessageBytes?: number;
  readonly connectTimeoutMs?: number;
  /**
   * TCP only: a message the collector has not taken within this long (it stopped reading and the
   * socket's buffers are full) fails the session with IPFIX_SEND. Default 10 s.
   */
  readonly writeTimeoutMs?: number;
  /** Clock in ms (export times and template refresh). */
  readonly now?: () => number;
}

interface Session {
  write(buf: Buffer): Promise<void>;
  close(): void;
  readonly alive: () => boolean;
}

/**
 * One IPFIX exporting process session to one collector (RFC 7011 section 10): TCP or UDP, the
 * templates first, then data sets packed into messages, with the header's sequence number
 * counting data records. A failed session stays failed: the owner closes it and opens another
 * (the agent's flow exporter retries with backoff), and a new session starts with the templates.
 */
export class IpfixExporter {
  private readonly log: Logger;
  private session: Session | undefined;
  private sequence = 0;
  private templatesSentAt = 0;
  private readonly now: () => number;
  private readonly maxBytes: number;

  constructor(private readonly o: IpfixExporterOptions) {
    this.log = o.logger.child({
      component: 'ipfix-exporter',
      collector: `${o.host}:${o.port}/${o.transport}`,
    });
    this.now = o.now ?? Date.now;
    this.maxBytes = o.maxMessageBytes ?? (o.transport === 'udp' ? 1400 : 0xffff);
  }

  get connected(): boolean {
    return this.session?.alive() ?? false;
  }

  /** Opens the session and sends the templates. */
  async connect(): Promise<void> {
    this.close();
    const connectMs = this.o.connectTimeoutMs ?? 10_000;
    const { host, port } = this.o;
    const writeMs = this.o.writeTimeoutMs ?? 10_000;
    if (this.o.transport === 'tls') {
      const t = this.o.tls;
      if (!t)
        throw new IpfixError('IPFIX_TLS', 'transport tls needs a CA, a client certificate and a server name');
      // A refused handshake would only show as a closed stream: find out why first (IPFIX_TLS).
      await probeTls(host, port, t, connectMs, []);
      this.session = await openStream(
        () => tls.connect({ host, port, ...tlsClientOptions(t, []) }),
        'secureConnect',
        connectMs,
        writeMs,
      );
    } else if (this.o.transport === 'tcp') {
      this.session = await openStream(() => net.connect({ host, port }), 'connect', connectMs, writeMs);
    } else this.session = await openUdp(host, port);
    this.sequence = 0;
    await this.sendTemplates();
    this.log.info('connected to the IPFIX collector; templates sent');
  }

  /**
   * Sends `records` of `template` (values in template order) in as few messages as fit;
   * returns the bytes sent. Throws IPFIX_SEND when the session is down or a write fails.
   */
  async send(template: TemplateRecord, records: readonly (readonly FieldValue[])[]): Promise<number> {
    const s = this.requireSession();
    if (
      this.o.transport === 'udp' &&
      this.now() - this.templatesSentAt >= (this.o.templateRefreshMs ?? 600_000)
    ) {
      await this.sendTemplates();
    }
    let sent = 0;
    let batch: (readonly FieldValue[])[] = [];
    let size = MESSAGE_HEADER_LENGTH + SET_HEADER_LENGTH;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const buf = encodeMessage(this.header(), [{ template, records: batch }]);
      this.sequence = (this.sequence + batch.length) >>> 0;
      await s.write(buf);
      sent += buf.length;
      batch = [];
      size = MESSAGE_HEADER_LENGTH + SET_HEADER_LENGTH;
    };
    for (const r of records) {
      const n = dataRecordLength(template, r);
      if (batch.length > 0 && size + n > this.maxBytes) await flush();
      batch.push(r);
      size += n;
    }
    await flush();
    return sent;
  }

  /** Idempotent. */
  close(): void {
    this.session?.close();
    this.session = undefined;
  }

  private requireSession(): Session {
    const s = this.session;
    if (!s?.alive()) throw new IpfixError('IPFIX_SEND', 'not connected to the IPFIX collector');
    return s;
  }

  private header() {
    return { exportTime: Math.floor(this.now() / 1000), sequence: this.sequence, domainId: this.o.domainId };
  }

  private async sendTemplates(): Promise<void> {
    const s = this.requireSession();
    // One template set per message, several templates each while they fit.
    let group: TemplateRecord[] = [];
    let size = MESSAGE_HEADER_LENGTH + SET_HEADER_LENGTH;
    const flush = async (): Promise<void> => {
      if (group.length) await s.write(encodeMessage(this.header(), [{ templates: group }]));
      group = [];
      size = MESSAGE_HEADER_LENGTH + SET_HEADER_LENGTH;
    };
    for (const t of this.o.templates) {
      const n = templateRecordLength(t);
      if (group.length > 0 && size + n > this.maxBytes) await flush();
      group.push(t);
      size += n;
    }
    await flush();
    this.templatesSentAt = this.now();
  }
}

function sendError(err: unknown): IpfixError {
  return new IpfixError('IPFIX_SEND', `sending to the IPFIX collector failed: ${String(err)}`, {
    cause: err,
  });
}

/** A TCP (or TLS, `ready` secureConnect) session: one stream, writes in order. */
function openStream(
  dial: () => net.Socket,
  ready: 'connect' | 'secureConnect',
  timeoutMs: number,
  writeTimeoutMs: number,
): Promise<Session> {
  return new Promise((resolve, reject) => {
    const socket = dial();
    let alive = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(sendError(`connect timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setNoDelay(true);
    socket.once(ready, () => {
      clearTimeout(timer);
      alive = true;
      resolve({
        write: (buf) =>
          new Promise((ok, fail) => {
            if (!alive) return fail(sendError('connection closed'));
            // A collector that stops reading would hold the write (and its caller) forever.
            const stalled = setTimeout(() => {
              alive = false;
              socket.destroy();
              fail(sendError(`the collector took no data for ${writeTimeoutMs} ms`));
            }, writeTimeoutMs);
            socket.write(buf, (err) => {
              clearTimeout(stalled);
              if (err) fail(sendError(err));
              else ok();
            });
          }),
        close: () => {
          alive = false;
          socket.destroy();
        },
        alive: () => alive,
      });
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      alive = false;
      reject(sendError(err));
    });
    // A collector that closes or resets the stream ends the session.
    socket.on('close', () => {
      alive = false;
    });
    socket.on('data', () => {});
  });
}

function openUdp(host: string, port: number): Promise<Session> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    let alive = false;
    let closed = false;
    // ICMP port unreachable surfaces as an error on a connected socket: the session ends.
    socket.on('error', (err) => {
      if (!alive) reject(sendError(err));
      alive = false;
    });
    socket.connect(port, host, () => {
      alive = true;
      resolve({
        write: (buf) =>
          new Promise((ok, fail) => {
            if (!alive) return fail(sendError('socket closed'));
            socket.send(buf, (err) => (err ? fail(sendError(err)) : ok()));
          }),
        close: () => {
          alive = false;
          if (closed) return;
          closed = true;
          socket.close();
        },
        alive: () => alive,
      });
    });
  });
}
