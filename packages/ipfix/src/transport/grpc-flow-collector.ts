import { Server, ServerCredentials, type ServerReadableStream, type sendUnaryData } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { IpfixError } from '../errors.js';
import {
  domainIdOf,
  type FlowOrigin,
  type NamedFlowValues,
  valuesFromFlow,
} from '../flow-proto/flow-message.js';
import { flowExportServiceDefinition } from '../flow-proto/service.js';

/** The aggregator's serving certificate and the CA its clients must be signed by. */
export interface FlowServerTls {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface GrpcFlowCollectorOptions {
  readonly host: string;
  /** FLOW_GRPC_PORT (14739) in Antrea; 0 picks a free port. */
  readonly port: number;
  readonly tls: FlowServerTls;
  readonly logger: Logger;
  /** Each ExportRequest's flows as records by element name, as they arrive. */
  readonly onRecords: (records: readonly NamedFlowValues[], origin: FlowOrigin) => void;
}

/** `ipv4:10.0.0.1:5000`, `10.0.0.1:5000`, `[fd00::1]:5000` -> the address alone. */
export function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  const at = bare.lastIndexOf(':');
  return (at < 0 ? bare : bare.slice(0, at)).replace(/[[\]]/g, '');
}

/**
 * The Flow Aggregator's gRPC collector (Antrea's FlowExportService on 14739): mutual TLS (a client
 * certificate signed by the aggregator's CA is required, TLS 1.2 or newer), one Export stream per
 * agent, every request's flows handed on at once.
 */
export class GrpcFlowCollector {
  private readonly log: Logger;
  private server: Server | undefined;
  private boundPort = 0;
  private streams = 0;
  flows = 0;
  decodeErrors = 0;

  constructor(private readonly o: GrpcFlowCollectorOptions) {
    this.log = o.logger.child({ component: 'grpc-flow-collector' });
  }

  get port(): number {
    return this.boundPort;
  }

  /** Export streams open now. */
  get sessions(): number {
    return this.streams;
  }

  async start(): Promise<number> {
    const server = new Server();
    server.addService(flowExportServiceDefinition, {
      Export: (
        call: ServerReadableStream<Record<string, unknown>[], unknown>,
        done: sendUnaryData<unknown>,
      ) => this.serve(call, done),
    });
    const creds = ServerCredentials.createSsl(
      Buffer.from(this.o.tls.caPem),
      [{ private_key: Buffer.from(this.o.tls.keyPem), cert_chain: Buffer.from(this.o.tls.certPem) }],
      true,
    );
    const target = this.o.host.includes(':')
      ? `[${this.o.host}]:${this.o.port}`
      : `${this.o.host}:${this.o.port}`;
    this.boundPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(target, creds, (err, port) =>
        err
          ? reject(new IpfixError('IPFIX_SEND', `cannot listen on ${target}: ${err.message}`, { cause: err }))
          : resolve(port),
      ),
    );
    this.server = server;
    this.log.info({ port: this.boundPort }, 'gRPC flow collector listening (mTLS)');
    return this.boundPort;
  }

  private serve(
    call: ServerReadableStream<Record<string, unknown>[], unknown>,
    done: sendUnaryData<unknown>,
  ): void {
    const exporterIp = peerAddress(call.getPeer());
    this.streams++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.streams--;
    };
    call.on('data', (flows: Record<string, unknown>[]) => {
      if (flows.length === 0) return;
      const records = flows.map(valuesFromFlow);
      this.flows += records.length;
      this.o.onRecords(records, { observationDomainId: domainIdOf(flows[0]!), exporterIp });
    });
    call.on('error', (err) => {
      if (IpfixError.is(err)) this.decodeErrors++;
      this.log.debug({ err, exporterIp }, 'export stream failed');
      end();
    });
    call.on('end', () => {
      end();
      done(null, {});
    });
  }

  /** Idempotent: closes every stream and the listening socket (its port is free when this resolves). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    // tryShutdown waits for open streams: cancel them first, then wait for the listener to close.
    const closed = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    server.forceShutdown();
    await closed;
  }
}
