import type { IpfixTransport } from '@antrea-ts/ipfix';
import { AgentError } from '../errors.js';

/** IANA's IPFIX port, Antrea's default when flowCollectorAddr names none. */
export const DEFAULT_COLLECTOR_PORT = 4739;

/** IPFIX over tcp/udp, or Antrea's gRPC flow export (mutual TLS with the Flow Aggregator's certificates). */
export type CollectorTransport = IpfixTransport | 'grpc';

export interface CollectorAddress {
  /** An IP, a DNS name, or `<namespace>/<name>` of a Service (resolved to its ClusterIP). */
  readonly host: string;
  readonly port: number;
  readonly transport: CollectorTransport;
}

/**
 * Antrea's `flowCollectorAddr`: `<HOST>:[<PORT>][:<PROTO>]`, IPv6 hosts in brackets. PROTO is
 * `grpc` (Antrea's chart default, with `:14739`), `tls` (IPFIX over mutual TLS, Antrea's default
 * when PROTO is left out), `tcp` or `udp`.
 */
export function parseCollectorAddress(text: string): CollectorAddress {
  const invalid = (why: string) =>
    new AgentError('AGENT_CONFIG_INVALID', `flowExporter.flowCollectorAddr ${JSON.stringify(text)}: ${why}`);
  let host: string;
  let rest: string[];
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw invalid('unterminated [IPv6] host');
    host = text.slice(1, close);
    rest = text
      .slice(close + 1)
      .split(':')
      .slice(1);
    if (text.length > close + 1 && text[close + 1] !== ':') throw invalid('expected : after ]');
  } else {
    [host = '', ...rest] = text.split(':');
  }
  if (!host) throw invalid('no host');
  if (rest.length > 2) throw invalid('expected <HOST>:[<PORT>][:<PROTO>]');
  const port = rest[0] ? Number(rest[0]) : DEFAULT_COLLECTOR_PORT;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw invalid(`bad port ${rest[0]}`);
  const proto = rest[1] || 'tls';
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'tls' && proto !== 'grpc')
    throw invalid(`unknown protocol ${proto}`);
  return { host, port, transport: proto };
}
