import { connect, type Socket } from 'node:net';
import { OvsdbDisconnectedError, OvsdbProtocolError } from '../errors.js';

export type Endpoint = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

/** Accepts OVS-style remotes: `unix:/path`, `tcp:host:port`, `tcp:[v6]:port`, or a bare absolute path. */
export function parseEndpoint(remote: string): Endpoint {
  if (remote.startsWith('/')) return { kind: 'unix', path: remote };
  if (remote.startsWith('unix:')) return { kind: 'unix', path: remote.slice(5) };
  if (remote.startsWith('tcp:')) {
    const rest = remote.slice(4);
    const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(rest);
    const port = Number(m?.[3]);
    if (m && port > 0 && port < 65536) return { kind: 'tcp', host: (m[1] ?? m[2])!, port };
  }
  throw new OvsdbProtocolError(
    `unsupported OVSDB remote ${JSON.stringify(remote)} (want unix:PATH or tcp:HOST:PORT)`,
  );
}

export function describeEndpoint(endpoint: Endpoint): string {
  return endpoint.kind === 'unix' ? `unix:${endpoint.path}` : `tcp:${endpoint.host}:${endpoint.port}`;
}

/** Opens a socket and resolves once it is connected; rejects with OVSDB_DISCONNECTED otherwise. */
export function connectEndpoint(endpoint: Endpoint, signal?: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      endpoint.kind === 'unix' ? connect({ path: endpoint.path }) : connect(endpoint.port, endpoint.host);
    const onAbort = () => {
      socket.destroy();
      reject(new OvsdbDisconnectedError(`connect to ${describeEndpoint(endpoint)} aborted`));
    };
    const cleanup = () => {
      socket.off('error', onError);
      socket.off('connect', onConnect);
      signal?.removeEventListener('abort', onAbort);
    };
    const onError = (cause: Error) => {
      cleanup();
      socket.destroy();
      reject(
        new OvsdbDisconnectedError(`cannot connect to ${describeEndpoint(endpoint)}: ${cause.message}`, {
          cause,
        }),
      );
    };
    const onConnect = () => {
      cleanup();
      // Small request/response messages: latency matters more than batching.
      socket.setNoDelay?.(true);
      resolve(socket);
    };
    if (signal?.aborted) return onAbort();
    socket.once('error', onError);
    socket.once('connect', onConnect);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
