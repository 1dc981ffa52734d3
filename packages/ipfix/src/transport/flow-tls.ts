import tls from 'node:tls';
import { IpfixError } from '../errors.js';

/** What a flow exporter presents and trusts (Antrea: the flow-aggregator-ca ConfigMap and flow-aggregator-client-tls Secret). */
export interface FlowClientTls {
  /** PEM of the CA that signed the aggregator's serving certificate. */
  readonly caPem: string;
  /** Client certificate and key (mTLS), PEM. */
  readonly certPem: string;
  readonly keyPem: string;
  /** Name checked against the server certificate (Antrea: `flow-aggregator.flow-aggregator.svc`, or the address's host). */
  readonly serverName: string;
}

/**
 * One TLS handshake with the aggregator, as gRPC will make it, closed at once. gRPC reports a
 * failed handshake only as "unavailable"; this says why (wrong CA, name mismatch, client
 * certificate refused), so the agent's log names the cause. Fails with IPFIX_TLS.
 */
export function probeTls(
  host: string,
  port: number,
  t: FlowClientTls,
  timeoutMs: number,
  alpn: readonly string[] = ['h2'],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (why: string, cause?: unknown) => {
      socket.destroy();
      reject(
        new IpfixError(
          'IPFIX_TLS',
          `TLS with the flow aggregator at ${host}:${port} (as ${t.serverName}) failed: ${why}`,
          {
            cause,
          },
        ),
      );
    };
    const socket = tls.connect({ host, port, ...tlsClientOptions(t, alpn) });
    socket.setTimeout(timeoutMs, () => fail(`no handshake within ${timeoutMs} ms`));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      // Nobody there is not a TLS problem: the caller retries as for any unreachable collector.
      if (err.code && UNREACHABLE.has(err.code)) {
        socket.destroy();
        reject(
          new IpfixError(
            'IPFIX_SEND',
            `cannot reach the flow aggregator at ${host}:${port}: ${err.message}`,
            { cause: err },
          ),
        );
      } else fail(err.message, err);
    });
    socket.once('secureConnect', () => {
      // With TLS 1.3 the server judges the client certificate after the client's side of the
      // handshake is done: an alert or a plain close (refused), or a session ticket (accepted).
      const timer = setTimeout(done, SERVER_VERDICT_WAIT_MS);
      function done() {
        clearTimeout(timer);
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.destroy();
        resolve();
      }
      socket.once('session', done);
      socket.once('end', () => {
        clearTimeout(timer);
        fail(
          'the aggregator closed the connection after the handshake: it refused the client certificate (not signed by its CA?)',
        );
      });
    });
  });
}

/** Client-side TLS options: the CA, the client certificate, the name checked, TLS 1.2 or newer. */
export function tlsClientOptions(t: FlowClientTls, alpn: readonly string[]): tls.ConnectionOptions {
  return {
    ca: t.caPem,
    cert: t.certPem,
    key: t.keyPem,
    ...(alpn.length ? { ALPNProtocols: [...alpn] } : {}),
    minVersion: 'TLSv1.2',
    ...(isIpText(t.serverName) ? {} : { servername: t.serverName }),
    checkServerIdentity: (_host, cert) => tls.checkServerIdentity(t.serverName, cert),
  };
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** How long to wait for a TLS 1.3 server's verdict on the client certificate when it sends no ticket. */
const SERVER_VERDICT_WAIT_MS = 500;

const isIpText = (s: string): boolean => /^[\d.]+$/.test(s) || s.includes(':');
