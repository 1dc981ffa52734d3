import { type Client, credentials, Metadata, makeGenericClientConstructor, status } from '@grpc/grpc-js';
import { AgentRpcError } from '../errors.js';
import type { UnaryTransport } from './unary-transport.js';

/**
 * The same unary call through @grpc/grpc-js. Not used by the plugin binary (it costs ~100 ms to load);
 * kept so the start-up benchmark can compare, and as a drop-in if the node:http2 client ever misbehaves
 * against a server.
 */
export class GrpcJsUnaryTransport implements UnaryTransport {
  private client: Client | undefined;

  constructor(private readonly socketPath: string) {}

  call(path: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const Ctor = makeGenericClientConstructor({}, 'Cni');
    const client = new Ctor(`unix:${this.socketPath}`, credentials.createInsecure());
    this.client = client;
    const identity = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    return new Promise<Uint8Array>((resolve, reject) => {
      client.makeUnaryRequest<Uint8Array, Buffer>(
        path,
        identity,
        (b) => b,
        request,
        new Metadata(),
        { deadline: Date.now() + timeoutMs },
        (err, value) => {
          client.close();
          if (err) {
            // grpc-js only reports "No connection established" style details; connect failures
            // surface as UNAVAILABLE without a way to tell them apart, so treat UNAVAILABLE as such.
            reject(new AgentRpcError(err.code, err.details, err.code === status.UNAVAILABLE, { cause: err }));
          } else resolve(value ?? new Uint8Array(0));
        },
      );
    });
  }

  close(): void {
    this.client?.close();
  }
}
