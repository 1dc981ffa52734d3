import {
  ANTREA_AGENT_IPV4_ELEMENTS,
  type FieldValue,
  type FlowClientTls,
  GrpcFlowExporter,
  IpfixExporter,
  type NamedFlowValues,
} from '@antrea-ts/ipfix';
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';
import type { AggregatorClientTls } from './aggregator-tls.js';
import type { CollectorTransport } from './collector-address.js';
import { IPV4_TEMPLATE } from './flow-record.js';

/** One session with the collector: IPFIX over tcp/udp or Antrea's gRPC export. */
export interface CollectorSession {
  readonly connected: boolean;
  /** Records in the agent template's element order (ipv4RecordValues). */
  send(records: readonly FieldValue[][]): Promise<void>;
  close(): void;
}

export interface CollectorSessionOptions {
  /** Resolved address. */
  readonly host: string;
  readonly port: number;
  readonly transport: CollectorTransport;
  /** The name the aggregator's certificate must carry (gRPC). */
  readonly serverName: string;
  readonly domainId: number;
  /** The aggregator's CA and the client certificate (gRPC only). */
  readonly readTls?: () => Promise<AggregatorClientTls>;
  readonly logger: Logger;
  readonly now: () => number;
}

/** A template-ordered record by element name (the gRPC mapping works on names). */
export function namedRecord(values: readonly FieldValue[]): NamedFlowValues {
  const out: NamedFlowValues = {};
  ANTREA_AGENT_IPV4_ELEMENTS.forEach((name, i) => {
    out[name] = values[i]!;
  });
  return out;
}

/** The aggregator's CA and client certificate, with the name to check (grpc and tls). */
async function clientTls(o: CollectorSessionOptions): Promise<FlowClientTls> {
  if (!o.readTls)
    throw new AgentError(
      'AGENT_FLOW_EXPORTER_TLS',
      `flow export over ${o.transport} needs a Kubernetes client to read the Flow Aggregator CA`,
    );
  return { ...(await o.readTls()), serverName: o.serverName };
}

/** Opens a session (templates sent for IPFIX; TLS checked first for grpc and tls). */
export async function openCollectorSession(o: CollectorSessionOptions): Promise<CollectorSession> {
  if (o.transport === 'grpc') {
    const exporter = new GrpcFlowExporter({
      host: o.host,
      port: o.port,
      tls: await clientTls(o),
      domainId: o.domainId,
      logger: o.logger,
      now: o.now,
    });
    await exporter.connect();
    return sessionOf(exporter, (records) => exporter.send(records.map(namedRecord)));
  }
  const exporter = new IpfixExporter({
    host: o.host,
    port: o.port,
    transport: o.transport,
    ...(o.transport === 'tls' ? { tls: await clientTls(o) } : {}),
    domainId: o.domainId,
    templates: [IPV4_TEMPLATE],
    logger: o.logger,
    now: o.now,
  });
  await exporter.connect();
  return sessionOf(exporter, async (records) => {
    await exporter.send(IPV4_TEMPLATE, records);
  });
}

function sessionOf(
  exporter: { readonly connected: boolean; close(): void },
  send: CollectorSession['send'],
): CollectorSession {
  return {
    get connected() {
      return exporter.connected;
    },
    send,
    close: () => exporter.close(),
  };
}

/**
 * The name checked against the aggregator's certificate, as Antrea derives it: a Service address
 * `<namespace>/<name>` is `<name>.<namespace>.svc`, any other host is itself.
 */
export function collectorServerName(host: string): string {
  const slash = host.indexOf('/');
  return slash < 0 ? host : `${host.slice(slash + 1)}.${host.slice(0, slash)}.svc`;
}
