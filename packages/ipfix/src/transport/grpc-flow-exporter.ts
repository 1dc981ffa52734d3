import { type ClientWritableStream, credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { IpfixError } from '../errors.js';
import { encodeExportRequest, flowFromValues, type NamedFlowValues } from '../flow-proto/flow-message.js';
import { flowExportServiceDefinition } from '../flow-proto/service.js';
import { type FlowClientTls, probeTls } from './flow-tls.js';

const FlowExportClient = makeGenericClientConstructor(flowExportServiceDefinition, 'FlowExportService');

export interface GrpcFlowExporterOptions {
  readonly host: string;
  readonly port: number;
  readonly tls: FlowClientTls;
  readonly domainId: number;
  readonly logger: Logger;
  readonly connectTimeoutMs?: number;
  /** Clock in ms (each flow's export time). */
  readonly now?: () => number;
}

/**
 * Antrea's gRPC flow export session (FlowExportService.Export, a client stream) over mutual TLS:
 * each `send` writes one ExportRequest with the batch's flows. A failed stream stays failed; the
 * owner closes it and opens another, as with the IPFIX exporter.
 */
export class GrpcFlowExporter {
  private readonly log: Logger;
  private client: InstanceType<typeof FlowExportClient> | undefined;
  private stream: ClientWritableStream<Uint8Array> | undefined;
  private failure: Error | undefined;
  private readonly now: () => number;

  constructor(private readonly o: GrpcFlowExporterOptions) {
    this.log = o.logger.child({ component: 'grpc-flow-exporter', collector: `${o.host}:${o.port}` });
    this.now = o.now ?? Date.now;
  }

  get connected(): boolean {
    return this.stream !== undefined && this.failure === undefined;
  }

  /** Checks the TLS handshake (IPFIX_TLS with its reason), then opens the stream. */
  async connect(): Promise<void> {
    const timeoutMs = this.o.connectTimeoutMs ?? 5000;
    await probeTls(this.o.host, this.o.port, this.o.tls, timeoutMs);
    const creds = credentials.createSsl(
      Buffer.from(this.o.tls.caPem),
      Buffer.from(this.o.tls.keyPem),
      Buffer.from(this.o.tls.certPem),
    );
    const target = this.o.host.includes(':')
      ? `[${this.o.host}]:${this.o.port}`
      : `${this.o.host}:${this.o.port}`;
    // The name the server certificate must carry, when it is not the address dialed (a Service's
    // DNS name while dialing its ClusterIP).
    const name = this.o.tls.serverName;
    const client = new FlowExportClient(
      target,
      creds,
      name === this.o.host ? {} : { 'grpc.ssl_target_name_override': name, 'grpc.default_authority': name },
    );
    this.client = client;
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(Date.now() + timeoutMs, (err) =>
        err
          ? reject(
              new IpfixError('IPFIX_SEND', `gRPC channel to ${target} not ready: ${err.message}`, {
                cause: err,
              }),
            )
          : resolve(),
      ),
    );
    const stream = (
      client as unknown as {
        Export(cb: (err: Error | null) => void): ClientWritableStream<Uint8Array>;
      }
    ).Export((err) => {
      // The call ends: an error, or the server closed it (which the agent treats as a failure too).
      this.failure ??= err ?? new IpfixError('IPFIX_CLOSED', 'the flow aggregator ended the export stream');
      if (err) this.log.warn({ err }, 'flow export stream failed');
    });
    stream.on('error', (err: Error) => {
      this.failure ??= err;
    });
    this.stream = stream;
    this.failure = undefined;
  }

  /** Sends one ExportRequest with a `Flow` per record (elements of the agent template). */
  async send(records: readonly NamedFlowValues[]): Promise<void> {
    const stream = this.stream;
    if (!stream || this.failure)
      throw new IpfixError('IPFIX_SEND', 'no export stream to the flow aggregator', { cause: this.failure });
    const exportSeconds = Math.floor(this.now() / 1000);
    const bytes = encodeExportRequest(records.map((r) => flowFromValues(r, this.o.domainId, exportSeconds)));
    const flushed = stream.write(bytes);
    if (!flushed)
      await new Promise<void>((resolve) => {
        // A stream that fails while full never drains: its end settles the wait too.
        for (const event of ['drain', 'error', 'close']) stream.once(event, () => resolve());
      });
    if (this.failure)
      throw new IpfixError('IPFIX_SEND', 'flow export stream failed', { cause: this.failure });
  }

  /** Idempotent. */
  close(): void {
    this.stream?.end();
    this.stream = undefined;
    this.client?.close();
    this.client = undefined;
  }
}
